package io.kvroute.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import io.kvroute.bench.BenchCli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --format conversation} from the command line, and the excess it reports (BenchCommandTest covers the rest). */
class ConversationCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldGenerateConversationsWithoutATraceAndReportEachPolicysExcess() throws Exception {
        Path json = dir.resolve("conversation.json");

        Run run = BenchCli.run("--format", "conversation", "--requests", "400", "--session-rate", "5", "--policies", "kvroute,round-robin",
                "--fleet", "a=2@5", "--json", json.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("trace generated (conversation, 400 requests)", "excess_p50", "excess_p99");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.path("format").asText()).isEqualTo("conversation");
        for (String policy : new String[] {"kvroute", "round-robin"}) {
            JsonNode p = root.path("policies").path(policy);
            assertThat(p.path("completed").asInt()).isEqualTo(400);
            // every request's TTFT is at least its own oracle's
            assertThat(p.path("ttft_excess_ms").path("p50").asDouble()).isGreaterThanOrEqualTo(0);
            assertThat(p.path("ttft_excess_ms").path("p99").asDouble()).isLessThan(p.path("ttft_ms").path("p99").asDouble());
            assertThat(p.path("slowdown").path("p50").asDouble()).isGreaterThanOrEqualTo(1.0);
        }
    }

    @Test
    void shouldRefuseABadSessionRateNamingIt() {
        Run run = BenchCli.run("--format", "conversation", "--session-rate", "0", "--policies", "kvroute");

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("sessionsPerSecond must be a finite number > 0, was 0");
    }
}

package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LoadtestCommandTest {
    private static LoadtestRun.Options parse(String... args) {
        LoadtestCommand command = new LoadtestCommand();
        new CommandLine(command).parseArgs(args);
        return command.options();
    }

    @Test
    void shouldDefaultToFiftyThousandRequestsEightWorkersOneRouterAndTheKvroutePolicy() {
        LoadtestRun.Options options = parse();
        assertThat(options.requests()).isEqualTo(50_000);
        assertThat(options.workers()).isEqualTo(8);
        assertThat(options.gpusPerWorker()).isEqualTo(8);
        assertThat(options.routers()).isEqualTo(1);
        assertThat(options.policy()).isEqualTo("kvroute");
        assertThat(options.preload()).isTrue();
        assertThat(options.copy()).isTrue();
        assertThat(options.copyPartitions()).as("the copy writes to as many partitions as the requests topic has").isEqualTo(4);
        assertThat(options.bootstrapServers()).isNull();
        assertThat(options.stallTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.trace()).isReadable();
        assertThat(options.warmupRequests()).as("pre-loaded, the warm-up comes on top of the measured requests").isEqualTo(10_000);
        assertThat(options.totalRequests()).isEqualTo(60_000);
        assertThat(parse("--warmup-requests", "0").totalRequests()).isEqualTo(50_000);
        assertThat(options.transactionVersion()).as("the broker's own default").isZero();
    }

    @Test
    void shouldTakeEveryFlag() {
        LoadtestRun.Options options = parse("--requests", "1500", "--workers", "1000", "--routers", "2", "--policy", "round-robin",
                "--rate", "250", "--no-copy", "--copy-partitions", "1000", "--block-tokens", "32", "--set", "router.saturation.queue.factor=1000",
                "--work-dir", "/tmp/x", "--stall-timeout", "PT10S", "--warmup-seconds", "2", "--transaction-version", "1");
        assertThat(options.requests()).isEqualTo(1500);
        assertThat(options.workers()).isEqualTo(1000);
        assertThat(options.routers()).isEqualTo(2);
        assertThat(options.policy()).isEqualTo("round-robin");
        assertThat(options.ratePerSecond()).isEqualTo(250.0);
        assertThat(options.preload()).isFalse();
        assertThat(options.copy()).isFalse();
        assertThat(options.copyPartitions()).isEqualTo(1000);
        assertThat(options.warmupRequests()).as("2 s at 250/s").isEqualTo(500);
        assertThat(options.totalRequests()).as("with a rate, the warm-up is among the requests").isEqualTo(1500);
        assertThat(options.blockTokens()).isEqualTo(32);
        assertThat(options.settings()).containsEntry("router.saturation.queue.factor", "1000");
        assertThat(options.workDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(options.commandLine()).startsWith("kvroute loadtest --requests 1500");
        assertThat(options.transactionVersion()).isEqualTo(1);
    }

    @Test
    void shouldNameTheFlagAndTheValueOfABadNumber() {
        assertThatThrownBy(() -> parse("--requests", "0")).hasMessage("--requests must be between 1 and 2147483646, was 0");
        assertThatThrownBy(() -> parse("--workers", "-3")).hasMessageContaining("--workers").hasMessageContaining("-3");
        assertThatThrownBy(() -> parse("--gpus-per-worker", "65")).hasMessageContaining("--gpus-per-worker").hasMessageContaining("65");
        assertThatThrownBy(() -> parse("--routers", "5")).hasMessageContaining("--routers").hasMessageContaining("was 5");
        assertThatThrownBy(() -> parse("--rate", "0")).hasMessageContaining("--rate").hasMessageContaining("0.0");
        assertThatThrownBy(() -> parse("--rate", "10", "--warmup-seconds", "-1")).hasMessageContaining("--warmup-seconds");
        assertThatThrownBy(() -> parse("--block-tokens", "600")).hasMessageContaining("--block-tokens").hasMessageContaining("600");
        assertThatThrownBy(() -> parse("--copy-partitions", "0")).hasMessageContaining("--copy-partitions").hasMessageContaining("was 0");
        assertThatThrownBy(() -> parse("--stall-timeout", "PT0S")).hasMessageContaining("--stall-timeout");
        assertThatThrownBy(() -> parse("--transaction-version", "3")).hasMessageContaining("--transaction-version").hasMessageContaining("was 3");
        assertThatThrownBy(() -> parse("--repeat", "0")).hasMessage("--repeat must be between 1 and 20, was 0");
        assertThatThrownBy(() -> parse("--warmup-requests", "-1")).hasMessageContaining("--warmup-requests").hasMessageContaining("was -1");
        assertThatThrownBy(() -> parse("--rate", "10", "--warmup-requests", "100"))
                .hasMessage("--warmup-requests applies to pre-loaded requests; with --rate give --warmup-seconds, was 100");
    }

    @Test
    void shouldGiveEachRunOfASeriesItsOwnWorkDirectory() {
        LoadtestRun.Options options = parse("--work-dir", "/tmp/x", "--repeat", "3", "--requests", "1500");
        assertThat(options.inRun(2).workDir()).isEqualTo(Path.of("/tmp/x/run-2"));
        assertThat(options.inRun(2).requests()).isEqualTo(1500);
        assertThat(options.inRun(2).commandLine()).isEqualTo(options.commandLine());
    }

    @Test
    void shouldNameTheFlagOfAValueThatIsNotANumber() {
        assertThatThrownBy(() -> parse("--requests", "lots")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--requests").hasMessageContaining("lots");
    }

    @Test
    void shouldRefuseAnUnknownPolicyListingTheKnownOnes() {
        assertThatThrownBy(() -> parse("--policy", "fastest")).hasMessageContaining("--policy must be one of")
                .hasMessageContaining("round-robin").hasMessageContaining("'fastest'");
    }

    @Test
    void shouldNeedTheRegistryOfAGivenCluster() {
        assertThatThrownBy(() -> parse("--bootstrap-servers", "127.0.0.1:9092")).hasMessageContaining("--registry-url")
                .hasMessageContaining("127.0.0.1:9092");
        assertThatThrownBy(() -> parse("--registry-url", "http://r")).hasMessageContaining("--bootstrap-servers");
        assertThatThrownBy(() -> parse("--bootstrap-servers", "h:1", "--registry-url", "r:2")).hasMessageContaining("--registry-url must start");
        assertThatThrownBy(() -> parse("--replication-factor", "3")).hasMessageContaining("--replication-factor").hasMessageContaining("3");
        assertThat(parse("--bootstrap-servers", "h:1", "--registry-url", "http://r/apis/ccompat/v7", "--replication-factor", "3")
                .replicationFactor()).isEqualTo((short) 3);
        assertThatThrownBy(() -> parse("--bootstrap-servers", "h:1", "--registry-url", "http://r", "--transaction-version", "1"))
                .hasMessageContaining("--transaction-version").hasMessageContaining("given cluster");
    }

    @Test
    void shouldRefuseSettingsThatAreNotTheRoutersOrThatTheLoadTestOwns() {
        assertThatThrownBy(() -> parse("--set", "worker.max.running=4")).hasMessageContaining("--set").hasMessageContaining("worker.max.running=4");
        assertThatThrownBy(() -> parse("--set", "router.policy=random")).hasMessageContaining("--policy");
    }

    @Test
    void shouldRefuseATraceItCannotRead() {
        assertThatThrownBy(() -> parse("--trace", "/nonexistent/trace.jsonl")).hasMessageContaining("--trace")
                .hasMessageContaining("/nonexistent/trace.jsonl");
    }

    @Test
    void shouldExitWithUsageErrorStatusOnABadFlag() {
        StringWriter err = new StringWriter();
        int status = new CommandLine(new LoadtestCommand()).setErr(new PrintWriter(err)).execute("--workers", "0");
        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("--workers must be between 1 and 100000, was 0");
    }
}

package io.kvroute.local.up;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.ingress.cli.CollectCommand;
import io.kvroute.ingress.cli.SubmitCommand;
import io.kvroute.local.stack.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvroute up} as a newcomer uses it: the stack it starts takes the example batch with the
 * commands it prints, and a second {@code up} on the same directory still serves what the first wrote.
 */
class UpCommandIntegrationTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void shouldServeABatchSubmittedWithThePrintedCommandsAndKeepItsResultsForTheNextUp() throws Exception {
        UpCommand up = up();
        Path results = dir.resolve("results.jsonl");
        Path manifest;
        try (LocalStack stack = up.start(quiet())) {
            String printed = UpInstructions.of(stack, up.workDir, up.clientConfig(), up.exampleBatch());
            assertThat(printed).contains(stack.bootstrapServers()).contains("/health/ready")
                    .contains("./kvroute submit --config " + up.clientConfig() + " " + up.exampleBatch());

            Run submit = run(new SubmitCommand(), "--config", up.clientConfig().toString(), up.exampleBatch().toString(), "--no-progress");
            assertThat(submit.exit).as(submit.err).isZero();
            manifest = Path.of(up.exampleBatch() + ".manifest.jsonl");
            Run collect = run(new CollectCommand(), "--config", up.clientConfig().toString(), "--ids", manifest.toString(),
                    "--output", results.toString(), "--timeout", "90s", "--no-progress");

            assertThat(collect.exit).as(collect.err).isZero();
            assertThat(completedCustomIds(results)).hasSize(6).allMatch(id -> id.startsWith("example-"));
        }

        Path again = dir.resolve("again.jsonl");
        try (LocalStack stack = up().start(quiet())) {
            Run collect = run(new CollectCommand(), "--config", up.clientConfig().toString(), "--ids", manifest.toString(),
                    "--output", again.toString(), "--timeout", "60s", "--no-progress");

            assertThat(collect.exit).as("the first up's results, read after a restart: " + collect.err).isZero();
            assertThat(completedCustomIds(again)).hasSize(6);
        }
    }

    @Test
    void shouldRefuseAPortInUseNamingTheOption() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            UpCommand up = up();
            up.registryPort = taken.getLocalPort();

            assertThatThrownBy(() -> up.start(quiet())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--registry-port " + taken.getLocalPort()).hasMessageContaining("in use");
        }
    }

    private UpCommand up() {
        UpCommand up = new UpCommand();
        new CommandLine(up).parseArgs("--work-dir", dir.resolve("up").toString(), "--fleet", "us-east=1@5,eu-west=1@40",
                "--kafka-port", "0", "--registry-port", "0");
        return up;
    }

    private static List<String> completedCustomIds(Path output) throws Exception {
        List<String> ids = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            JsonNode result = JSON.readTree(line);
            if (result.at("/response/status_code").asInt() == 200) {
                ids.add(result.get("custom_id").asText());
            }
        }
        return ids;
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(Callable<Integer> command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = new CommandLine(command).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }
}

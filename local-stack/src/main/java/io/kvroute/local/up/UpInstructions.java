package io.kvroute.local.up;

import io.kvroute.local.console.ConsoleSettings;
import io.kvroute.local.stack.LocalStack;
import io.kvroute.router.RouterApp;
import io.kvroute.worker.WorkerApp;
import java.nio.file.Path;

/** What {@code kvroute up} prints once the stack runs: where everything is, and the commands to paste. */
final class UpInstructions {
    private UpInstructions() {
    }

    static String of(LocalStack stack, Path workDir, Path clientConfig, Path exampleBatch) {
        return of(stack, workDir, clientConfig, exampleBatch, null);
    }

    /** With {@code consoleUrl} null when no console was started: the command that starts one is printed instead. */
    static String of(LocalStack stack, Path workDir, Path clientConfig, Path exampleBatch, String consoleUrl) {
        String config = "--config " + clientConfig;
        String manifest = exampleBatch + ".manifest.jsonl";
        StringBuilder text = new StringBuilder();
        text.append("kvroute up: running; Ctrl-C stops everything (data kept in ").append(workDir.toAbsolutePath()).append(")\n\n");
        text.append(String.format("  %-22s %s%n", "Kafka", stack.bootstrapServers()));
        text.append(String.format("  %-22s %s%n", "schema registry", stack.registryUrl()));
        for (RouterApp router : stack.services().routers()) {
            text.append(String.format("  %-22s %s%n", "router", endpoints(router.metricsPort())));
        }
        for (WorkerApp worker : stack.services().workers()) {
            text.append(String.format("  %-22s %s%n", "worker " + worker.workerId(), endpoints(worker.metricsPort())));
        }
        if (consoleUrl != null) {
            text.append(String.format("  %-22s %s%n", "console", consoleUrl + "  (fleet, decisions, requests, dead letters)"));
        }
        text.append(String.format("  %-22s %s%n", "client settings", clientConfig));
        text.append("\nTry (an example batch is in ").append(exampleBatch).append("):\n");
        text.append("  ./kvroute submit ").append(config).append(' ').append(exampleBatch).append('\n');
        text.append("  ./kvroute collect ").append(config).append(" --ids ").append(manifest).append(" --output results.jsonl\n");
        text.append("  ./kvroute decisions ").append(config).append(" --follow --from-beginning\n");
        if (consoleUrl != null) {
            text.append("  open ").append(consoleUrl).append("decisions  (a request id there links to its story)\n");
        } else {
            text.append("  ./kvroute console ").append(config).append("  (then open http://127.0.0.1:")
                    .append(ConsoleSettings.DEFAULT_PORT).append("/)\n");
        }
        return text.toString();
    }

    private static String endpoints(Integer port) {
        return port == null || port < 0 ? "(no metrics endpoint)"
                : "http://127.0.0.1:" + port + "/metrics  /health/ready  /health/live";
    }
}

package io.kvroute.bench.sim;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the simulated workers tell the router. {@link #OBSERVABLE}, the default, is what a worker in
 * front of a real inference server can report, filled by the same code as the live worker's
 * ({@code EngineStats.observable}): the server's gauges and the worker's record of what it sent, and
 * no KV events (kvroute does not read a real server's yet). {@link #WHITE_BOX} adds what only the
 * simulator knows (each queued prompt's tokens left and their attention, which running requests
 * still prefill, the host tier) and KV events; its results are labelled so and never a verdict.
 */
public enum TelemetryMode {
    OBSERVABLE("observable"),
    WHITE_BOX("white-box");

    private final String label;

    TelemetryMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static TelemetryMode parse(String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(m -> m.label.equals(wanted)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown telemetry mode '" + value + "', known: observable, white-box"));
    }
}

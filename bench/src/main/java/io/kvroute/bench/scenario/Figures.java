package io.kvroute.bench.scenario;

import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.RunLog;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntPredicate;

/** Helpers the scenarios share to turn a {@link RunLog} into figures. */
final class Figures {
    private Figures() {
    }

    /** TTFT percentiles of the requests matching {@code which} that produced a token. */
    static Latency ttft(RunLog log, IntPredicate which) {
        long[] samples = new long[log.trace().size()];
        int n = 0;
        for (int i = 0; i < samples.length; i++) {
            if (which.test(i) && log.ttftMs(i) >= 0) {
                samples[n++] = log.ttftMs(i);
            }
        }
        return Latency.of(java.util.Arrays.copyOf(samples, n));
    }

    static Map<String, Object> latency(Latency l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50", l.p50());
        m.put("p99", l.p99());
        m.put("mean", round(l.mean(), 1));
        return m;
    }

    static String ms(Latency l) {
        return String.format(Locale.ROOT, "p50 %.0f / p99 %.0f ms", l.p50(), l.p99());
    }

    static double round(double value, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(value * scale) / scale;
    }
}

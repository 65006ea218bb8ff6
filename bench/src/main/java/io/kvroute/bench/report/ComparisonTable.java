package io.kvroute.bench.report;

import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.EstimateError;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.PolicyResult;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** The bench report as a plain-text table: one row per policy, then the bounds and kvroute's verdict. */
public final class ComparisonTable {
    private static final String ROW = "%-19s %9s %9s %9s %9s %10s %10s %9s %9s %6s %7s %9s %8s %5s  %s%n";

    private ComparisonTable() {
    }

    public static String format(BenchReport report) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "trace %s (%s, %d requests), fleet %s, engine %s, load scale %s, seed %d, TTFT SLO %d ms%n",
                report.trace(), report.format(), report.requests(), report.fleet(), report.engine(),
                trim(report.loadScale()), report.seed(), report.sloMs()));
        out.append(String.format(Locale.ROOT, "telemetry %s%s, router engine %s%n", report.telemetry(),
                report.observable() ? "" : " (WHITE-BOX: what only a simulator can see; no verdict)", report.routerEngine()));
        if (FleetSpec.parse(report.fleet()).totalGpus() > report.candidateSampleSize()) {
            out.append(String.format(Locale.ROOT, "a decision evaluates the prefix's holders plus %d other GPUs drawn at random%n",
                    report.candidateSampleSize()));
        }
        out.append(String.format(Locale.ROOT, ROW, "policy", "completed", "ttft_p50", "ttft_p90", "ttft_p99", "excess_p50",
                "excess_p99", "e2e_p50",
                "e2e_p99", "hit", "preempt", "goodput", "tokens/s", "busy",
                "requests per region (" + String.join("/", report.fleetRegions()) + ")"));
        for (PolicyResult r : report.policies().values()) {
            out.append(String.format(Locale.ROOT, ROW, r.policy(),
                    r.completed() + (r.rejected() + r.failed() > 0 ? "!" : ""),
                    ms(r.ttftMs().p50()), ms(r.ttftMs().p90()), ms(r.ttftMs().p99()),
                    ms(r.ttftExcessMs().p50()), ms(r.ttftExcessMs().p99()), ms(r.e2eMs().p50()), ms(r.e2eMs().p99()),
                    String.format(Locale.ROOT, "%.3f", r.prefixHitRate()), Long.toString(r.preemptions()),
                    String.format(Locale.ROOT, "%.2f/s", r.goodputRps()), String.format(Locale.ROOT, "%.0f", r.throughputTokensS()),
                    String.format(Locale.ROOT, "%.2f", r.gpuBusy()),
                    report.fleetRegions().stream().map(region -> Integer.toString(r.requestsPerRegion().getOrDefault(region, 0)))
                            .collect(Collectors.joining("/"))));
        }
        Bounds b = report.bounds();
        out.append(String.format(Locale.ROOT, "bounds: prefix_hit_rate_upper %.3f (infinite shared cache); "
                        + "ttft_oracle p50 %s p99 %s (alone on an idle GPU holding every prefix seen before)%n",
                b.prefixHitRateUpper(), ms(b.ttftOracleMs().p50()), ms(b.ttftOracleMs().p99())));
        QualityVerdict.of(report).ifPresent(v -> out.append(v.describe()).append('\n'));
        for (PolicyResult r : report.policies().values()) {
            EstimateError e = r.ttftEstimateError();
            if (e.present()) {
                out.append(String.format(Locale.ROOT, "%s's own TTFT estimates (realized minus estimated, dispatch latency left out, "
                                + "%d decisions): bias %+.1f ms, mean absolute %.1f ms, 90%% within %.0f ms%n",
                        r.policy(), e.decisions(), e.biasMs(), e.meanAbsMs(), e.p90AbsMs()));
                out.append(String.format(Locale.ROOT, "  over the run, bias by tenth of the decisions: %s ms%n",
                        String.join(" ", e.biasByTenthMs().stream().map(v -> String.format(Locale.ROOT, "%+.0f", v)).toList())));
            }
        }
        out.append("latencies in ms as the user sees them (dispatch + network both ways + queueing + prefill); "
                + "goodput = requests with TTFT <= " + report.sloMs() + " ms per second of makespan;\n"
                + "excess = a served request's TTFT minus its own oracle TTFT (bounds line), percentiles over requests;\n"
                + "busy = GPU step time / (GPUs x makespan); '!' = some requests rejected or failed\n");
        return out.toString();
    }

    /** Each run's verdict on the routing-quality claim, a line per seed, then how many passed. */
    public static String verdicts(List<BenchReport> reports) {
        StringBuilder out = new StringBuilder();
        int judged = 0;
        int passed = 0;
        for (BenchReport report : reports) {
            Optional<QualityVerdict> verdict = QualityVerdict.of(report);
            out.append(String.format(Locale.ROOT, "seed %d: %s%n", report.seed(),
                    verdict.map(QualityVerdict::describe).orElse("no verdict (needs kvroute and at least one baseline)")));
            judged += verdict.isPresent() ? 1 : 0;
            passed += verdict.filter(QualityVerdict::passed).isPresent() ? 1 : 0;
        }
        out.append(String.format(Locale.ROOT, "routing-quality claim met on %d of %d seeds%n", passed, judged));
        return out.toString();
    }

    private static String ms(double value) {
        return String.format(Locale.ROOT, "%.0f", value);
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}

package io.kvroute.local.console;

import io.kvroute.schemas.v1.WorkerTelemetry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fleet as the compacted worker-telemetry topic says it is: each worker's newest report
 * (a tombstone removes the worker), grouped by region, with its age against an injected clock.
 * Bounded by {@link #MAX_WORKERS}: a compacted topic holds one record per worker.
 */
final class FleetView {
    static final int MAX_WORKERS = 100_000;

    private final Clock clock;
    private final long staleAfterMs;
    private final Map<String, WorkerTelemetry> workers = new TreeMap<>();
    private long reports;

    FleetView(Clock clock, long staleAfterMs) {
        this.clock = clock;
        this.staleAfterMs = staleAfterMs;
    }

    synchronized void update(String workerId, WorkerTelemetry telemetry) {
        reports++;
        if (telemetry == null) {
            workers.remove(workerId);
        } else if (workers.size() < MAX_WORKERS || workers.containsKey(workerId)) {
            workers.put(workerId, telemetry);
        }
    }

    /** Regions in name order, each with its workers in id order and their totals. */
    synchronized Map<String, Object> snapshot() {
        long now = clock.millis();
        Map<String, List<Map<String, Object>>> byRegion = new TreeMap<>();
        for (WorkerTelemetry t : workers.values()) {
            byRegion.computeIfAbsent(t.getRegion(), r -> new ArrayList<>()).add(RecordViews.worker(t, now, staleAfterMs));
        }
        List<Map<String, Object>> regions = new ArrayList<>();
        int stale = 0;
        for (Map.Entry<String, List<Map<String, Object>>> e : byRegion.entrySet()) {
            int running = 0, waiting = 0, regionStale = 0;
            long owed = 0;
            double tokensPerSecond = 0;
            for (Map<String, Object> w : e.getValue()) {
                running += (Integer) w.get("running");
                waiting += (Integer) w.get("waiting");
                owed += (Long) w.get("owedPrefillTokens");
                tokensPerSecond += (Double) w.get("tokensPerSecond");
                regionStale += Boolean.TRUE.equals(w.get("stale")) ? 1 : 0;
            }
            stale += regionStale;
            Map<String, Object> region = new LinkedHashMap<>();
            region.put("region", e.getKey());
            region.put("workers", e.getValue());
            region.put("running", running);
            region.put("waiting", waiting);
            region.put("owedPrefillTokens", owed);
            region.put("tokensPerSecond", tokensPerSecond);
            region.put("staleWorkers", regionStale);
            regions.add(region);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("nowMs", now);
        out.put("staleAfterMs", staleAfterMs);
        out.put("workerCount", workers.size());
        out.put("staleWorkers", stale);
        out.put("telemetryReports", reports);
        out.put("regions", regions);
        return out;
    }
}

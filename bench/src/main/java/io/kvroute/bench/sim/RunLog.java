package io.kvroute.bench.sim;

import io.kvroute.bench.trace.TraceRequest;
import java.util.List;
import java.util.Map;

/**
 * What happened to each request of a run with {@link Conditions}, for the scenario figures. Times
 * are virtual ms as the user sees them; {@code -1} = never.
 *
 * @param attempts            dispatches per request (more than 1 after a 429 or a failover)
 * @param placements          every dispatch decision, in time order
 * @param residencyViolations dispatches to a region the request or its tenant does not allow (checked by the
 *                            simulator against the trace, not by the router's own code)
 * @param rateLimitedAnswers  429 answers the router received
 * @param cooldownMsByRegion  total time each region's pool was cooling down (union of cool-downs)
 * @param failovers           re-dispatches of requests stuck on a worker whose telemetry went stale
 * @param quotaWaits          requests that waited for their tenant's quota
 * @param quotaRejected       requests rejected by their tenant's quota
 */
public record RunLog(List<TraceRequest> trace, long[] firstTokenAtMs, long[] doneAtMs, int[] attempts,
                     List<PlacementRecord> placements, int residencyViolations, int rateLimitedAnswers,
                     Map<String, Long> cooldownMsByRegion, int failovers, int quotaWaits, int quotaRejected) {

    /** One dispatch: when, which request (trace index), where, and which attempt. */
    public record PlacementRecord(long atMs, int index, String region, String workerId, int attempt) {
    }

    /** Requests that never completed (rejected, failed or stuck): those never done. */
    public int lostCount() {
        int n = 0;
        for (long done : doneAtMs) {
            if (done < 0) {
                n++;
            }
        }
        return n;
    }

    /** TTFT of request {@code i} as the user sees it, or -1 if it never produced a token. */
    public long ttftMs(int i) {
        return firstTokenAtMs[i] < 0 ? -1 : firstTokenAtMs[i] - trace.get(i).arrivalMs();
    }
}

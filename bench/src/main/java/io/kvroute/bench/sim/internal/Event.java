package io.kvroute.bench.sim.internal;

/** One scheduled happening of a simulation, ordered by time, then by the order it was scheduled. */
record Event(long timeMs, long sequence, Kind kind, int gpu, int request, Object payload) implements Comparable<Event> {

    enum Kind {
        /** A trace request reaches the router. */
        ARRIVAL,
        /** The router's parked-request punctuator fires. */
        PARK_RETRY,
        /** Another router instance's committed decision reaches the others (the request index is the placed request's). */
        PEER_DECISION,
        /** A worker consumes a dispatch record (dispatch latency after the decision). */
        CONSUMED,
        /** A consumed request reaches the worker's engine (the region delay later). */
        DELIVERED,
        /** An engine starts a step. */
        STEP,
        /** A worker's telemetry publisher checks its engine. */
        TELEMETRY_CHECK,
        /** A published telemetry record (and KV event) reaches the router (the region delay later). */
        TELEMETRY_VISIBLE,
        /** Scenario: a request waited out its tenant's quota and is admitted again. */
        ADMIT,
        /** Scenario: a region's workers stop answering. */
        OUTAGE_START,
        /** Scenario: a region's workers restart, empty. */
        OUTAGE_END,
        /** Scenario: a worker's 429 answer reaches the router. */
        RATE_LIMITED_ANSWER,
        /** Scenario: the router re-dispatches requests stuck on workers whose telemetry went stale. */
        FAILOVER_CHECK
    }

    @Override
    public int compareTo(Event other) {
        int byTime = Long.compare(timeMs, other.timeMs);
        return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
    }
}

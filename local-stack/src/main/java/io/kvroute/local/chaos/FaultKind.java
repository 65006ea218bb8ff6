package io.kvroute.local.chaos;

/** The faults {@code kvroute chaos} injects, with the names its JSON report uses. */
public enum FaultKind {
    /** kill -9 of one worker; it is started again (same id) a few seconds later. */
    KILL_WORKER("kill_worker"),
    /** SIGSTOP of one worker for several session timeouts, then SIGCONT: it comes back a zombie. */
    HANG_WORKER("hang_worker"),
    /** kill -9 of one router instance; it is started again (same application id and state directory). */
    KILL_ROUTER("kill_router"),
    /** kill -9 of the broker, then a start on the same port and data. */
    RESTART_BROKER("restart_broker"),
    /** SIGSTOP of every worker of one region (they go silent together), then SIGCONT. */
    REGION_OUTAGE("region_outage");

    private final String jsonName;

    FaultKind(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }
}

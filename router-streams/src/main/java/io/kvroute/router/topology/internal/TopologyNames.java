package io.kvroute.router.topology.internal;

/** Names of the router's processors, sinks and stores; fixed so upgrades keep their state. */
public final class TopologyNames {
    public static final String REQUESTS_SOURCE = "kvroute-requests-source";
    public static final String INTAKE = "kvroute-request-intake";
    public static final String ROUTER = "kvroute-request-router";
    public static final String DLQ_SINK = "kvroute-dlq-sink";
    public static final String RESPONSES_SINK = "kvroute-responses-sink";
    public static final String DECISIONS_SINK = "kvroute-decisions-sink";
    public static final String DISPATCH_SINK = "kvroute-dispatch-sink";
    public static final String TELEMETRY_SOURCE = "kvroute-telemetry-source";
    public static final String TELEMETRY_UPDATER = "kvroute-telemetry-updater";
    public static final String TELEMETRY_STORE = "router-worker-telemetry";
    public static final String KV_EVENTS_SOURCE = "kvroute-kv-events-source";
    public static final String KV_EVENTS_UPDATER = "kvroute-kv-events-updater";
    public static final String KV_EVENTS_STORE = "router-kv-event-sequences";
    public static final String CANCELLATIONS_SOURCE = "kvroute-cancellations-source";
    public static final String CANCELLATIONS_UPDATER = "kvroute-cancellations-updater";
    public static final String CANCELLATIONS_STORE = "router-cancelled-requests";
    public static final String PARKED_STORE = "router-parked-requests";
    public static final String ACCEPTED_IDS_STORE = "router-accepted-request-ids";
    public static final String IN_FLIGHT_STORE = "router-in-flight-requests";
    public static final String RESPONSES_SOURCE = "kvroute-responses-source";
    public static final String RESULT_TRACKER = "kvroute-result-tracker";
    public static final String CANCELLATIONS_SINK = "kvroute-cancellations-sink";
    public static final String TENANT_CANCELLATIONS_SOURCE = "kvroute-tenant-cancellations-source";
    public static final String TENANT_CANCEL_FORWARDER = "kvroute-tenant-cancel-forwarder";
    public static final String TENANT_CANCELLATIONS_SINK = "kvroute-tenant-cancellations-sink";
    public static final String ADMISSION_REQUEST_SINK = "kvroute-admission-request-sink";
    public static final String ADMISSION_SETTLE_SINK = "kvroute-admission-settle-sink";
    public static final String ADMISSION_SOURCE = "kvroute-admission-source";
    public static final String ADMISSION = "kvroute-admission";
    public static final String ADMISSION_RESPONSES_SINK = "kvroute-admission-responses-sink";
    public static final String ADMISSION_DECISIONS_SINK = "kvroute-admission-decisions-sink";
    public static final String ADMITTED_SINK = "kvroute-admitted-sink";
    public static final String ADMITTED_SOURCE = "kvroute-admitted-source";
    public static final String QUOTA_WAITING_STORE = "router-quota-waiting-requests";
    public static final String QUOTA_LEVELS_STORE = "router-quota-bucket-levels";
    public static final String QUOTA_RESERVATIONS_STORE = "router-quota-reservations";

    private TopologyNames() {
    }
}

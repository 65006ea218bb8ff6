package io.kvroute.router.admission;

/**
 * Why a request was refused: a short machine-readable kind (a metric tag) and a message for the
 * sender. Messages carry ids and sizes only, never prompt text.
 */
public record Rejection(String kind, String message) {
    public static final String UNDECODABLE = "undecodable";
    public static final String EMPTY_REQUEST_ID = "empty_request_id";
    public static final String EMPTY_PROMPT = "empty_prompt";
    public static final String MAX_TOKENS = "max_tokens";
    public static final String PROMPT_TOO_LONG = "prompt_too_long";
    public static final String UNKNOWN_MODEL = "unknown_model";
    public static final String DEADLINE_PASSED = "deadline_passed";
    public static final String UNKNOWN_REGION = "unknown_region";
    public static final String NO_CAPACITY = "no_capacity";
    public static final String DUPLICATE_REQUEST_ID = "duplicate_request_id";
    /** More chat messages, stop strings or prefix block hashes than the router's bounds allow. */
    public static final String TOO_MANY_MESSAGES = "too_many_messages";
    public static final String TOO_MANY_STOP_STRINGS = "too_many_stop_strings";
    public static final String TOO_MANY_PREFIX_HASHES = "too_many_prefix_hashes";
    /** A cache salt longer than {@link RequestValidator#MAX_CACHE_SALT_CHARS}: it travels in every dispatch record and server request. */
    public static final String CACHE_SALT_TOO_LONG = "cache_salt_too_long";
    /** The record's key is not its request id: its id's claim and its result would land in other partitions. */
    public static final String KEY_MISMATCH = "key_mismatch";
    /** With topics per tenant, a request naming a tenant other than its topic's. */
    public static final String TENANT_MISMATCH = "tenant_mismatch";
    /** The request and its tenant allow no region in common. */
    public static final String RESIDENCY = "residency";
    /** Over the tenant's quota (reject mode, or a wait that cannot end before the deadline). */
    public static final String OVER_QUOTA = "over_quota";

    /** The text put in the REJECTED response's error and the decision's reason. */
    public String reason() {
        return kind + ": " + message;
    }
}

package io.kvroute.worker.consumer;

/**
 * A received cancel as one string, for the worker's bounded set of recent cancels and its queue: the request id for a
 * cancel of whoever's request, or a control character, the tenant, another control character and the id for a cancel
 * of one tenant's request (topics per tenant). Request ids hold no control characters (the router rejects such keys)
 * and tenant names only letters, digits, '_' and '-', so neither form can be taken for the other.
 */
final class CancelKey {
    private static final char TENANT_MARK = '\u0001';
    private static final char SEPARATOR = '\u0000';

    private CancelKey() {
    }

    static String of(String requestId, String tenant) {
        return tenant == null ? requestId : TENANT_MARK + tenant + SEPARATOR + requestId;
    }

    static String requestId(String key) {
        return isOfTenant(key) ? key.substring(key.indexOf(SEPARATOR) + 1) : key;
    }

    /** The tenant a cancel is limited to, or null. */
    static String tenant(String key) {
        return isOfTenant(key) ? key.substring(1, key.indexOf(SEPARATOR)) : null;
    }

    private static boolean isOfTenant(String key) {
        return !key.isEmpty() && key.charAt(0) == TENANT_MARK && key.indexOf(SEPARATOR) > 0;
    }
}

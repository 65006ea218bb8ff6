package io.kvroute.router.topology.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A cancel as the router's cancellations store keeps it. A cancel a tenant sent with topics per tenant is kept as
 * {@code 'T'} and that tenant's name, and cancels only that tenant's request of the id; any other is kept as it was
 * written (Confluent wire format, first byte 0) and cancels the request of that id whoever sent it.
 */
final class CancelledEntry {
    private static final byte TENANT_TAG = 'T';

    private CancelledEntry() {
    }

    /** What to keep for a cancel of {@code tenant} (null: any) that was written as {@code written}. */
    static byte[] of(String tenant, byte[] written) {
        if (tenant == null) {
            return written;
        }
        byte[] name = tenant.getBytes(StandardCharsets.UTF_8);
        byte[] entry = new byte[name.length + 1];
        entry[0] = TENANT_TAG;
        System.arraycopy(name, 0, entry, 1, name.length);
        return entry;
    }

    /** Whether the kept cancel {@code entry} (null: none) cancels a request of {@code requestTenant}. */
    static boolean cancels(byte[] entry, String requestTenant) {
        if (entry == null) {
            return false;
        }
        if (entry.length == 0 || entry[0] != TENANT_TAG) {
            return true;
        }
        byte[] tenant = requestTenant == null ? new byte[0] : requestTenant.getBytes(StandardCharsets.UTF_8);
        return Arrays.equals(entry, 1, entry.length, tenant, 0, tenant.length);
    }
}

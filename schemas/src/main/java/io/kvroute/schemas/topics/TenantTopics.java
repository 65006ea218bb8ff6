package io.kvroute.schemas.topics;

import java.util.List;

/**
 * How a deployment lays out its tenants' traffic, the setting {@value #SETTING} that router, workers and clients must
 * agree on. {@code shared}: one requests, one responses and one cancellations topic for every tenant, the tenant named
 * in each record (tenants that trust each other). {@code per-tenant}: each tenant writes {@code <prefix>.requests.<t>}
 * and {@code <prefix>.cancellations.<t>} and reads {@code <prefix>.responses.<t>}, ACLs give each tenant's principal
 * its own three topics only, and the router takes the tenant from the topic, so a tenant is who the cluster
 * authenticated.
 */
public enum TenantTopics {
    SHARED("shared"), PER_TENANT("per-tenant");

    public static final String SETTING = "kvroute.tenant.topics";
    public static final List<String> NAMES = List.of(SHARED.setting, PER_TENANT.setting);

    private final String setting;

    TenantTopics(String setting) {
        this.setting = setting;
    }

    /** The value as the setting spells it. */
    public String setting() {
        return setting;
    }

    /** The layout a setting's value names (one of {@link #NAMES}, already checked). */
    public static TenantTopics of(String value) {
        return value.equals(PER_TENANT.setting) ? PER_TENANT : SHARED;
    }
}

package io.kvroute.router.routing.quota;

/** What happens to a tenant's request over its quota: it waits (retried after a delay, up to its deadline) or is rejected. */
public enum OverQuota {
    WAIT, REJECT
}

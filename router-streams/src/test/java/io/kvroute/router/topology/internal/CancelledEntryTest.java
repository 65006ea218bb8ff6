package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CancelledEntryTest {

    @Test
    void shouldCancelOnlyTheTenantsRequestWhenTheCancelNamesATenant() {
        byte[] entry = CancelledEntry.of("acme", new byte[] {0, 1, 2});

        assertThat(CancelledEntry.cancels(entry, "acme")).isTrue();
        assertThat(CancelledEntry.cancels(entry, "acm")).isFalse();
        assertThat(CancelledEntry.cancels(entry, "globex")).isFalse();
        assertThat(CancelledEntry.cancels(entry, null)).isFalse();
    }

    @Test
    void shouldCancelAnyRequestOfTheIdWhenTheCancelNamesNoTenant() {
        byte[] written = {0, 0, 0, 0, 7, 42};
        assertThat(CancelledEntry.of(null, written)).as("kept as written, as before tenants").isSameAs(written);
        assertThat(CancelledEntry.cancels(written, "acme")).isTrue();
        assertThat(CancelledEntry.cancels(new byte[0], "acme")).isTrue();
        assertThat(CancelledEntry.cancels(null, "acme")).as("no cancel").isFalse();
    }
}

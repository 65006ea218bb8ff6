package io.kvroute.worker.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CancelKeyTest {

    @Test
    void shouldKeepTheIdAloneForACancelOfAnyTenant() {
        assertThat(CancelKey.of("req-1", null)).isEqualTo("req-1");
        assertThat(CancelKey.requestId("req-1")).isEqualTo("req-1");
        assertThat(CancelKey.tenant("req-1")).isNull();
    }

    @Test
    void shouldTellTheTenantAndIdOfATenantsCancelApartFromAnyOther() {
        String key = CancelKey.of("req-1", "acme");
        assertThat(key).isNotEqualTo("req-1").isNotEqualTo(CancelKey.of("req-1", "globex"));
        assertThat(CancelKey.requestId(key)).isEqualTo("req-1");
        assertThat(CancelKey.tenant(key)).isEqualTo("acme");
    }
}

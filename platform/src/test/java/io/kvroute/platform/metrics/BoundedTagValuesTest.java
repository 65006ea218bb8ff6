package io.kvroute.platform.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BoundedTagValuesTest {

    @Test
    void shouldKeepTheFirstValuesAndReportEveryLaterOneAsOther() {
        BoundedTagValues tenants = new BoundedTagValues(2);

        assertThat(tenants.of("acme")).isEqualTo("acme");
        assertThat(tenants.of("globex")).isEqualTo("globex");
        assertThat(tenants.of("initech")).isEqualTo(BoundedTagValues.OTHER);
        assertThat(tenants.of("acme")).as("a kept value stays itself").isEqualTo("acme");
        assertThat(tenants.of(null)).isEqualTo(BoundedTagValues.OTHER);
    }
}

package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ParkedKeyTest {
    @Test
    void shouldKeepTheStoreOrderAndReadKeysWrittenBeforeAttempts() {
        ParkedKey fresh = new ParkedKey(42, 1_000);
        ParkedKey handedBack = new ParkedKey(43, 2_000, 3);

        assertThat(fresh.encode()).as("the form written before attempts").isEqualTo("0000000000000000042:1000");
        assertThat(ParkedKey.decode(fresh.encode())).isEqualTo(new ParkedKey(42, 1_000, 0));
        assertThat(ParkedKey.decode(handedBack.encode())).isEqualTo(handedBack);
        assertThat(fresh.encode().compareTo(handedBack.encode())).as("arrival order is byte order").isNegative();
        assertThat(new ParkedKey(100, 0).encode().compareTo(new ParkedKey(99, 5_000, 2).encode())).isPositive();
    }
}

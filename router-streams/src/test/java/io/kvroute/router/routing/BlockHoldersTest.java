package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BlockHoldersTest {

    @Test
    void shouldAgreeWithASetOfPairsAcrossOneManyAndBitsetHolders() {
        Random random = new Random(5);
        BlockHolders holders = new BlockHolders();
        Map<Long, Set<Integer>> reference = new HashMap<>();
        for (int step = 0; step < 40_000; step++) {
            long hash = random.nextInt(50) * 0x9E3779B97F4A7C15L;
            int worker = random.nextInt(200);
            Set<Integer> held = reference.computeIfAbsent(hash, h -> new HashSet<>());
            if (random.nextInt(3) == 0) {
                assertThat(holders.remove(hash, worker)).isEqualTo(held.remove(worker));
            } else {
                assertThat(holders.add(hash, worker)).isEqualTo(held.add(worker));
            }
            if (step % 1_000 == 0) {
                for (long h = 0; h < 50; h++) {
                    long key = h * 0x9E3779B97F4A7C15L;
                    for (int w = 0; w < 210; w++) {
                        assertThat(holders.contains(key, w)).isEqualTo(reference.getOrDefault(key, Set.of()).contains(w));
                    }
                }
            }
        }
        assertThat(holders.pairs()).isEqualTo(reference.values().stream().mapToInt(Set::size).sum());
        assertThat(reference.values().stream().mapToInt(Set::size).max().orElse(0)).isGreaterThan(BlockHolders.BITSET_MIN);
    }

    @Test
    void shouldForgetEveryPairOfARemovedWorker() {
        BlockHolders holders = new BlockHolders();
        for (int w = 0; w < 30; w++) {
            for (long h = 0; h < 100; h++) {
                holders.add(h, w);
            }
        }

        assertThat(holders.removeWorker(7)).isEqualTo(100);

        assertThat(holders.contains(3, 7)).isFalse();
        assertThat(holders.contains(3, 8)).isTrue();
        assertThat(holders.pairs()).isEqualTo(29 * 100);
    }
}

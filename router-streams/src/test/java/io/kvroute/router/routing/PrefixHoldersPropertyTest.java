package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The block → workers indices answer exactly what a per-worker scan of the same data answers,
 * whether a worker is matched directly or through a decision's prepared lookup.
 */
class PrefixHoldersPropertyTest {
    private static final int WORKERS = 40;

    @Test
    void shouldMatchAPerWorkerScanOfKvEventsOnRandomData() {
        for (long seed = 1; seed <= 5; seed++) {
            Random random = new Random(seed);
            KvEventIndex index = new KvEventIndex(5_000);
            Map<String, Set<Long>> reference = new HashMap<>();
            Map<String, Long> sequence = new HashMap<>();
            List<long[]> prompts = prompts(random);
            for (int step = 0; step < 2_000; step++) {
                String worker = "kv-" + random.nextInt(WORKERS);
                long seq = sequence.merge(worker, 1L, Long::sum);
                Set<Long> held = reference.computeIfAbsent(worker, w -> new HashSet<>());
                int kind = random.nextInt(20);
                if (kind == 0) {
                    index.apply(KvEvent.cleared(worker, seq));
                    held.clear();
                } else if (kind < 6) {
                    long[] prompt = prompts.get(random.nextInt(prompts.size()));
                    long[] evicted = {prompt[random.nextInt(prompt.length)], prompt[prompt.length - 1]};
                    index.apply(KvEvent.evicted(worker, seq, evicted));
                    held.remove(evicted[0]);
                    held.remove(evicted[1]);
                } else {
                    long[] prompt = prompts.get(random.nextInt(prompts.size()));
                    long[] stored = java.util.Arrays.copyOf(prompt, 1 + random.nextInt(prompt.length));
                    index.apply(KvEvent.stored(worker, seq, stored));
                    for (long hash : stored) {
                        held.add(hash);
                    }
                }
                if (step % 50 == 0) {
                    for (long[] query : prompts) {
                        index.prepare(query);
                        for (int w = 0; w < WORKERS; w++) {
                            String id = "kv-" + w;
                            int expected = scan(reference.getOrDefault(id, Set.of()), query);
                            assertThat(index.longestMatch(id, query)).as("prepared %s", id).isEqualTo(expected);
                            assertThat(index.longestMatch(id, query.clone())).as("direct %s", id).isEqualTo(expected);
                        }
                        index.release();
                    }
                }
            }
            assertThat(index.size()).isEqualTo(reference.values().stream().mapToLong(Set::size).sum());
        }
    }

    @Test
    void shouldMatchAPerWorkerScanOfRoutedBlocksOnRandomData() {
        for (long seed = 1; seed <= 5; seed++) {
            Random random = new Random(seed);
            ApproximatePrefixIndex index = new ApproximatePrefixIndex(1_500);
            ReferenceLru reference = new ReferenceLru(1_500);
            List<long[]> prompts = prompts(random);
            for (int step = 0; step < 2_000; step++) {
                String worker = "ap-" + random.nextInt(WORKERS);
                long[] prompt = prompts.get(random.nextInt(prompts.size()));
                long[] routed = java.util.Arrays.copyOf(prompt, 1 + random.nextInt(prompt.length));
                index.record(worker, routed, step);
                reference.record(worker, routed);
                if (step % 50 == 0) {
                    for (long[] query : prompts) {
                        index.prepare(query);
                        for (int w = 0; w < WORKERS; w++) {
                            String id = "ap-" + w;
                            int expected = reference.longestMatch(id, query);
                            assertThat(index.longestMatch(id, query)).as("prepared %s", id).isEqualTo(expected);
                            assertThat(index.longestMatch(id, query.clone())).as("direct %s", id).isEqualTo(expected);
                        }
                        index.release();
                    }
                }
            }
            assertThat(index.size()).isEqualTo(1_500);
        }
    }

    @Test
    void shouldNotServeAPreparedLookupAfterTheIndexChanged() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(100);
        long[] query = {1, 2, 3};
        index.prepare(query);
        index.record("st-a", query, 1);

        assertThat(index.longestMatch("st-a", query)).isEqualTo(3);
    }

    /** Prompts sharing prefixes: a few system prompts, each with several continuations. */
    private static List<long[]> prompts(Random random) {
        List<long[]> prompts = new ArrayList<>();
        for (int system = 0; system < 4; system++) {
            for (int user = 0; user < 5; user++) {
                long[] hashes = new long[3 + random.nextInt(6)];
                for (int i = 0; i < hashes.length; i++) {
                    hashes[i] = i < 2 ? system * 100L + i : system * 100L + user * 10L + i;
                }
                prompts.add(hashes);
            }
        }
        return prompts;
    }

    private static int scan(Set<Long> held, long[] query) {
        int matched = 0;
        while (matched < query.length && held.contains(query[matched])) {
            matched++;
        }
        return matched;
    }

    /** The previous implementation: one LRU map of (worker, block) pairs. */
    private static final class ReferenceLru {
        private final LinkedHashMap<String, Boolean> pairs;

        ReferenceLru(int capacity) {
            pairs = new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > capacity;
                }
            };
        }

        /** Last block first, as the index records: a prompt's first blocks become the most recent. */
        void record(String worker, long[] hashes) {
            for (int i = hashes.length - 1; i >= 0; i--) {
                pairs.remove(worker + "/" + hashes[i]);
                pairs.put(worker + "/" + hashes[i], true);
            }
        }

        int longestMatch(String worker, long[] hashes) {
            int matched = 0;
            while (matched < hashes.length && pairs.containsKey(worker + "/" + hashes[matched])) {
                matched++;
            }
            return matched;
        }
    }
}

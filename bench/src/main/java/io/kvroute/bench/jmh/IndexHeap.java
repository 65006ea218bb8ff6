package io.kvroute.bench.jmh;

import io.kvroute.router.routing.ApproximatePrefixIndex;
import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.KvEventIndex;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures the router heap taken by its prefix indices: builds the KV-event index with 1M
 * (block, worker) pairs over 1,000 workers (the {@link DecisionWorkload} prompts), then the
 * approximate prefix index filled to the same capacity, and prints the used heap after a full GC
 * at each step. With {@code hostShare} above 0 that share of the prompts also gets host-memory
 * marks (counted in the same entries). Run: {@code java -cp ... io.kvroute.bench.jmh.IndexHeap
 * [workers] [blocks] [hostShare]}.
 */
public final class IndexHeap {
    private IndexHeap() {
    }

    public static void main(String[] args) {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int blocks = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        double hostShare = args.length > 2 ? Double.parseDouble(args[2]) : 0.0;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        DecisionWorkload workload = new DecisionWorkload(workers, 42);
        FleetView fleet = workload.fleet();
        long base = usedAfterGc(memory);

        KvEventIndex kvEvents = new KvEventIndex(blocks);
        workload.fillKvEvents(kvEvents, blocks, hostShare);
        long withKvEvents = usedAfterGc(memory);

        ApproximatePrefixIndex routed = new ApproximatePrefixIndex(blocks);
        workload.fillRouted(routed);
        long withBoth = usedAfterGc(memory);

        System.out.printf("workers %d, fleet view %d workers%n", workers, fleet.size());
        System.out.printf("baseline used heap            %8.1f MB%n", mb(base));
        System.out.printf("KV-event index, %,d entries   %8.1f MB (+%.1f MB, %.0f bytes/entry)%n", kvEvents.size(),
                mb(withKvEvents), mb(withKvEvents - base), (double) (withKvEvents - base) / kvEvents.size());
        System.out.printf("approximate index, %,d pairs  %8.1f MB (+%.1f MB, %.0f bytes/pair)%n", routed.size(),
                mb(withBoth), mb(withBoth - withKvEvents), (double) (withBoth - withKvEvents) / routed.size());
        System.out.printf("both indices                  +%.1f MB over baseline%n", mb(withBoth - base));
        if (kvEvents.size() == 0 || routed.size() == 0 || fleet.size() == 0) {
            throw new IllegalStateException("unreachable: keeps the indices alive until here");
        }
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static double mb(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}

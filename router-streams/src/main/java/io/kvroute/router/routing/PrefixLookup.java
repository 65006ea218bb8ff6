package io.kvroute.router.routing;

/**
 * The holders of one request's leading blocks, fetched once from a {@link BlockHolders} so that
 * matching many workers against the request costs a few array reads per worker instead of a
 * table probe per (worker, block). Depth {@code d} lists the workers holding block {@code d};
 * fetching stops at the first block nobody holds (no worker can match past it). Immutable: it
 * describes the index as of {@link #version()}.
 */
final class PrefixLookup {
    private static final int CACHE_SLOTS = 256;
    private static final int CACHE_PROBES = 8;
    private final long[] hashes;
    private final long version;
    private final int depth;
    private final int[] single;
    private final int[][] many;
    private final long[][] bits;
    private String[] cachedWorkers;
    private int[] cachedMatches;

    private PrefixLookup(long[] hashes, long version, int depth, int[] single, int[][] many, long[][] bits) {
        this.hashes = hashes;
        this.version = version;
        this.depth = depth;
        this.single = single;
        this.many = many;
        this.bits = bits;
    }

    static PrefixLookup fetch(BlockHolders holders, long[] hashes, long version) {
        int[] single = new int[hashes.length];
        int[][] many = new int[hashes.length][];
        long[][] bits = new long[hashes.length][];
        holders.touch(hashes, hashes.length);
        int depth = 0;
        while (depth < hashes.length) {
            int slot = holders.find(hashes[depth]);
            if (slot < 0) {
                break;
            }
            single[depth] = holders.singleAt(slot);
            if (single[depth] == BlockHolders.NONE) {
                many[depth] = holders.manyAt(slot);
                bits[depth] = holders.bitsAt(slot);
            }
            depth++;
        }
        return new PrefixLookup(hashes, version, depth, single, many, bits);
    }

    boolean isFor(long[] requestHashes, long currentVersion) {
        return hashes == requestHashes && version == currentVersion;
    }

    long version() {
        return version;
    }

    /** Blocks with at least one holder, from the first. */
    int depth() {
        return depth;
    }

    /**
     * Leading blocks of the request the worker holds, remembered per worker id instance: a
     * decision asks about the same candidates several times (scoring, accounting).
     */
    int match(String workerId) {
        if (depth == 0) {
            return 0;
        }
        if (cachedWorkers == null) {
            cachedWorkers = new String[CACHE_SLOTS];
            cachedMatches = new int[CACHE_SLOTS];
        }
        int slot = System.identityHashCode(workerId) & (CACHE_SLOTS - 1);
        for (int probe = 0; probe < CACHE_PROBES; probe++) {
            String cached = cachedWorkers[slot];
            if (cached == workerId) {
                return cachedMatches[slot];
            }
            if (cached == null) {
                int matched = match(WorkerIds.find(workerId));
                cachedWorkers[slot] = workerId;
                cachedMatches[slot] = matched;
                return matched;
            }
            slot = (slot + 1) & (CACHE_SLOTS - 1);
        }
        return match(WorkerIds.find(workerId));
    }

    /** Leading blocks of the request the worker holds. */
    int match(int worker) {
        if (worker < 0) {
            return 0;
        }
        int matched = 0;
        while (matched < depth && holds(matched, worker)) {
            matched++;
        }
        return matched;
    }

    boolean holds(int block, int worker) {
        int[] several = many[block];
        if (several == null) {
            return single[block] == worker;
        }
        return BlockHolders.holds(several, bits[block], worker);
    }

    int holderCount(int block) {
        return many[block] == null ? 1 : many[block].length;
    }

    int holder(int block, int i) {
        return many[block] == null ? single[block] : many[block][i];
    }
}

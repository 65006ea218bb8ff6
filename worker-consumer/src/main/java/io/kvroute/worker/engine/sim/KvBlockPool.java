package io.kvroute.worker.engine.sim;

/**
 * Paged KV memory: a fixed number of pages of {@value #PAGE_TOKENS} tokens (vLLM's block size on
 * CUDA), each with a reference count so that a prefix page can be shared by several requests.
 * A page whose count drops to zero either returns to the free list or, if it holds a cached
 * prefix, stays with the {@link PrefixCache} until evicted. The default capacity, 26,000 pages
 * (about 416k tokens), is Llama-3.1-8B's KV room on one H100-80GB at 0.9 memory utilisation.
 * Not thread-safe.
 */
public final class KvBlockPool {
    public static final int PAGE_TOKENS = 16;
    public static final int DEFAULT_CAPACITY_BLOCKS = 26_000;

    private final int[] refCounts;
    private final int[] freeStack;
    private int freeCount;
    private int referenced;

    public KvBlockPool(int capacityBlocks) {
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("KV capacity must be at least 1 block, was " + capacityBlocks);
        }
        refCounts = new int[capacityBlocks];
        freeStack = new int[capacityBlocks];
        for (int i = 0; i < capacityBlocks; i++) {
            freeStack[i] = capacityBlocks - 1 - i;
        }
        freeCount = capacityBlocks;
    }

    public static int pagesFor(long tokens) {
        return (int) ((tokens + PAGE_TOKENS - 1) / PAGE_TOKENS);
    }

    /** Takes a free page with a reference count of one, or returns -1 if none is free. */
    public int allocate() {
        if (freeCount == 0) {
            return -1;
        }
        int page = freeStack[--freeCount];
        refCounts[page] = 1;
        referenced++;
        return page;
    }

    public void retain(int page) {
        if (refCounts[page]++ == 0) {
            referenced++;
        }
    }

    /** Drops one reference and returns the count left. A page left at zero is not free yet: see {@link #free}. */
    public int release(int page) {
        if (refCounts[page] <= 0) {
            throw new IllegalStateException("page " + page + " released more often than retained");
        }
        int left = --refCounts[page];
        if (left == 0) {
            referenced--;
        }
        return left;
    }

    /** Returns an unreferenced page to the free list. */
    public void free(int page) {
        if (refCounts[page] != 0) {
            throw new IllegalStateException("page " + page + " is still referenced " + refCounts[page] + " times");
        }
        freeStack[freeCount++] = page;
    }

    public int refCount(int page) {
        return refCounts[page];
    }

    public int capacity() {
        return refCounts.length;
    }

    public int freeBlocks() {
        return freeCount;
    }

    /** Pages referenced by at least one request: the "used" KV of telemetry. */
    public int referencedBlocks() {
        return referenced;
    }
}

package io.kvroute.worker.engine.sim;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The second prefix-cache tier in host DRAM, as kept by vLLM's CPU offloading connector, LMCache's
 * local CPU backend and Mooncake Store: prefix blocks evicted from GPU KV land here and can be loaded
 * back over PCIe instead of being recomputed. It holds copies, not GPU pages, so it only counts
 * pages (of {@value KvBlockPool#PAGE_TOKENS} tokens) against its capacity. Least recently used
 * first out; a block being loaded is pinned and never evicted. A loaded block keeps its host copy
 * (as LMCache does), so evicting it from the GPU again costs no second copy. Not thread-safe.
 */
public final class HostKvTier {
    private final int capacityPages;
    /** hash → pages, least recently used first. */
    private final LinkedHashMap<Long, Block> blocks = new LinkedHashMap<>();
    private int usedPages;
    private int pinnedPages;

    private static final class Block {
        final long hash;
        final int pages;
        int pins;

        Block(long hash, int pages) {
            this.hash = hash;
            this.pages = pages;
        }
    }

    public HostKvTier(int capacityPages) {
        if (capacityPages < 0) {
            throw new IllegalArgumentException("host KV capacity must not be negative, was " + capacityPages);
        }
        this.capacityPages = capacityPages;
    }

    public boolean contains(long hash) {
        return blocks.containsKey(hash);
    }

    /**
     * Keeps a copy of a block of {@code pages} pages as the most recently used one, first evicting
     * least recently used unpinned blocks (each announced to {@code beforeEvict} before it goes).
     * Returns false, changing nothing, if the block cannot fit even after evicting every unpinned block.
     */
    boolean offer(long hash, int pages, LongConsumer beforeEvict) {
        Block present = blocks.get(hash);
        if (present != null) {
            touch(hash);
            return true;
        }
        if (pages > capacityPages - pinnedPages) {
            return false;
        }
        for (Iterator<Block> it = blocks.values().iterator(); usedPages + pages > capacityPages && it.hasNext(); ) {
            Block victim = it.next();
            if (victim.pins > 0) {
                continue;
            }
            beforeEvict.accept(victim.hash);
            it.remove();
            usedPages -= victim.pages;
        }
        blocks.put(hash, new Block(hash, pages));
        usedPages += pages;
        return true;
    }

    /** Marks a block most recently used. */
    void touch(long hash) {
        Block block = blocks.remove(hash);
        if (block != null) {
            blocks.put(hash, block);
        }
    }

    /** Protects blocks from eviction while they are being loaded. */
    void pin(List<Long> hashes) {
        for (long h : hashes) {
            Block block = blocks.get(h);
            if (block.pins++ == 0) {
                pinnedPages += block.pages;
            }
        }
    }

    void unpin(List<Long> hashes) {
        for (long h : hashes) {
            Block block = blocks.get(h);
            if (block == null || block.pins == 0) {
                throw new IllegalStateException("host block " + h + " unpinned more often than pinned");
            }
            if (--block.pins == 0) {
                pinnedPages -= block.pages;
            }
        }
    }

    public int capacityPages() {
        return capacityPages;
    }

    public int usedPages() {
        return usedPages;
    }

    public int cachedBlocks() {
        return blocks.size();
    }

    /** Hashes in eviction order, least recently used first (for tests and debugging). */
    public List<Long> evictionOrder() {
        return List.copyOf(blocks.keySet());
    }

    /**
     * Throws IllegalStateException if the page count, the capacity bound or the pin count is
     * inconsistent, or if a pin is left when none is expected.
     */
    void checkInvariants(boolean expectNoPins) {
        int sum = 0;
        int pinned = 0;
        for (Block block : blocks.values()) {
            sum += block.pages;
            pinned += block.pins > 0 ? block.pages : 0;
        }
        if (pinned != pinnedPages || (expectNoPins && pinned != 0)) {
            throw new IllegalStateException("host tier has " + pinned + " pinned pages (counted " + pinnedPages
                    + ")" + (expectNoPins ? " outside an admission" : ""));
        }
        if (sum != usedPages || usedPages > capacityPages) {
            throw new IllegalStateException("host tier holds " + sum + " pages, counts " + usedPages + ", capacity "
                    + capacityPages);
        }
    }
}

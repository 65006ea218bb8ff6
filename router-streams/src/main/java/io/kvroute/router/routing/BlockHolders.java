package io.kvroute.router.routing;

import java.util.Arrays;

/**
 * Block hash → the workers (dense {@link WorkerIds}) holding it: the inverted index that lets a
 * routing decision find the workers caching a request's leading blocks without visiting every
 * worker. An open-addressing table (linear probing, backward-shift deletion) of primitives, the
 * key and its single holder side by side so a probe touches one cache line: a block held by one
 * worker costs one 16-byte slot and no object; a block held by several points to an immutable
 * sorted {@code int[]} replaced on every change (copy-on-write), so a holder array handed out
 * stays valid after later writes. A block with many holders also keeps them as a bitset (also
 * copy-on-write), so testing one worker costs one word.
 *
 * <p>Not thread-safe: the owner serialises writes against reads of the table itself.
 */
final class BlockHolders {
    static final int NONE = -1;
    static final int BITSET_MIN = 24;
    private static final long EMPTY = -2;
    private static final long MANY = -3;
    private static final float LOAD = 0.6f;

    /** Slot i: {@code table[2i]} the block hash, {@code table[2i + 1]} its single holder, {@link #EMPTY} or {@link #MANY}. */
    private long[] table;
    private int[][] many;
    /** For a block with at least {@link #BITSET_MIN} holders, the same holders as a bitset (immutable). */
    private long[][] bits;
    private int used;
    private int mask;
    private long pairs;
    /** Written by {@link #touch} so the JIT keeps its loads. */
    private long touched;

    BlockHolders() {
        allocate(16);
    }

    /** Distinct blocks held by at least one worker. */
    int blocks() {
        return used;
    }

    /** (block, worker) pairs. */
    long pairs() {
        return pairs;
    }

    boolean contains(long hash, int worker) {
        int slot = find(hash);
        if (slot < 0) {
            return false;
        }
        long single = table[2 * slot + 1];
        return single == MANY ? holds(many[slot], bits[slot], worker) : single == worker;
    }

    /**
     * Reads the home slot of each of the first {@code count} hashes without waiting for one
     * before the next: the cache misses of a request's blocks overlap instead of queueing, and
     * the probes that follow find the lines in cache.
     */
    void touch(long[] hashes, int count) {
        long sum = 0;
        long[] t = table;
        for (int i = 0; i < count; i++) {
            sum += t[2 * ((int) mix(hashes[i]) & mask)];
        }
        touched = sum;
    }

    /** The table slot of {@code hash}, or -1; valid until the next write. */
    int find(long hash) {
        int slot = (int) mix(hash) & mask;
        long state;
        while ((state = table[2 * slot + 1]) != EMPTY) {
            if (table[2 * slot] == hash) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    /** The only holder at {@code slot}, or {@link #NONE} if there are several ({@link #manyAt}). */
    int singleAt(int slot) {
        long single = table[2 * slot + 1];
        return single == MANY ? NONE : (int) single;
    }

    /** The sorted holders at {@code slot} when more than one; immutable. */
    int[] manyAt(int slot) {
        return many[slot];
    }

    /** The holders at {@code slot} as a bitset when they are many, else null; immutable. */
    long[] bitsAt(int slot) {
        return bits[slot];
    }

    static boolean holds(int[] sorted, long[] bitset, int worker) {
        if (bitset != null) {
            int word = worker >>> 6;
            return word < bitset.length && (bitset[word] & (1L << worker)) != 0;
        }
        return Arrays.binarySearch(sorted, worker) >= 0;
    }

    /** Adds the pair; false if it was there. */
    boolean add(long hash, int worker) {
        int slot = (int) mix(hash) & mask;
        while (table[2 * slot + 1] != EMPTY) {
            if (table[2 * slot] == hash) {
                return addAt(slot, worker);
            }
            slot = (slot + 1) & mask;
        }
        table[2 * slot] = hash;
        table[2 * slot + 1] = worker;
        pairs++;
        if (++used > LOAD * (mask + 1)) {
            allocateAndRehash((mask + 1) * 2);
        }
        return true;
    }

    /** Removes the pair; false if it was not there. */
    boolean remove(long hash, int worker) {
        int slot = find(hash);
        if (slot < 0) {
            return false;
        }
        long single = table[2 * slot + 1];
        if (single != MANY) {
            if (single != worker) {
                return false;
            }
            deleteSlot(slot);
            pairs--;
            return true;
        }
        int[] holders = many[slot];
        int at = Arrays.binarySearch(holders, worker);
        if (at < 0) {
            return false;
        }
        if (holders.length == 2) {
            table[2 * slot + 1] = holders[1 - at];
            many[slot] = null;
            bits[slot] = null;
        } else {
            int[] fewer = new int[holders.length - 1];
            System.arraycopy(holders, 0, fewer, 0, at);
            System.arraycopy(holders, at + 1, fewer, at, holders.length - at - 1);
            setMany(slot, fewer, bits[slot], worker, false);
        }
        pairs--;
        return true;
    }

    /** Removes every pair of {@code worker}; visits the whole table. Returns the pairs removed. */
    long removeWorker(int worker) {
        long[] held = new long[16];
        int n = 0;
        for (int slot = 0; slot <= mask; slot++) {
            long single = table[2 * slot + 1];
            if (single == worker || (single == MANY && holds(many[slot], bits[slot], worker))) {
                if (n == held.length) {
                    held = Arrays.copyOf(held, n * 2);
                }
                held[n++] = table[2 * slot];
            }
        }
        for (int i = 0; i < n; i++) {
            remove(held[i], worker);
        }
        return n;
    }

    private boolean addAt(int slot, int worker) {
        long single = table[2 * slot + 1];
        if (single == worker) {
            return false;
        }
        if (single != MANY) {
            table[2 * slot + 1] = MANY;
            int other = (int) single;
            setMany(slot, other < worker ? new int[] {other, worker} : new int[] {worker, other});
            pairs++;
            return true;
        }
        int[] holders = many[slot];
        int at = Arrays.binarySearch(holders, worker);
        if (at >= 0) {
            return false;
        }
        int insert = -at - 1;
        int[] more = new int[holders.length + 1];
        System.arraycopy(holders, 0, more, 0, insert);
        more[insert] = worker;
        System.arraycopy(holders, insert, more, insert + 1, holders.length - insert);
        setMany(slot, more, bits[slot], worker, true);
        pairs++;
        return true;
    }

    private void setMany(int slot, int[] holders) {
        setMany(slot, holders, null, 0, false);
    }

    /** Sets the holders of a slot; {@code previous} (one {@code changed} worker apart) saves rebuilding the bitset. */
    private void setMany(int slot, int[] holders, long[] previous, int changed, boolean added) {
        many[slot] = holders;
        if (holders.length < BITSET_MIN) {
            bits[slot] = null;
            return;
        }
        long[] bitset;
        if (previous != null) {
            int word = changed >>> 6;
            bitset = Arrays.copyOf(previous, Math.max(previous.length, word + 1));
            if (added) {
                bitset[word] |= 1L << changed;
            } else {
                bitset[word] &= ~(1L << changed);
            }
        } else {
            bitset = new long[(holders[holders.length - 1] >>> 6) + 1];
            for (int worker : holders) {
                bitset[worker >>> 6] |= 1L << worker;
            }
        }
        bits[slot] = bitset;
    }

    private void deleteSlot(int slot) {
        int hole = slot;
        int next = (hole + 1) & mask;
        while (table[2 * next + 1] != EMPTY) {
            int home = (int) mix(table[2 * next]) & mask;
            // move the entry back into the hole unless its home lies cyclically in (hole, next]
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                table[2 * hole] = table[2 * next];
                table[2 * hole + 1] = table[2 * next + 1];
                many[hole] = many[next];
                bits[hole] = bits[next];
                hole = next;
            }
            next = (next + 1) & mask;
        }
        table[2 * hole + 1] = EMPTY;
        many[hole] = null;
        bits[hole] = null;
        used--;
    }

    private void allocate(int capacity) {
        table = new long[2 * capacity];
        for (int i = 1; i < table.length; i += 2) {
            table[i] = EMPTY;
        }
        many = new int[capacity][];
        bits = new long[capacity][];
        mask = capacity - 1;
    }

    private void allocateAndRehash(int capacity) {
        long[] oldTable = table;
        int[][] oldMany = many;
        long[][] oldBits = bits;
        allocate(capacity);
        for (int i = 0; i < oldMany.length; i++) {
            if (oldTable[2 * i + 1] != EMPTY) {
                int slot = (int) mix(oldTable[2 * i]) & mask;
                while (table[2 * slot + 1] != EMPTY) {
                    slot = (slot + 1) & mask;
                }
                table[2 * slot] = oldTable[2 * i];
                table[2 * slot + 1] = oldTable[2 * i + 1];
                many[slot] = oldMany[i];
                bits[slot] = oldBits[i];
            }
        }
    }

    static long mix(long x) {
        x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
        x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }
}

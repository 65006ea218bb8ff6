package io.kvroute.router.routing;

/**
 * (block hash, worker) → int, an open-addressing table of primitives (linear probing,
 * backward-shift deletion): one 16-byte slot per pair, hash and (worker, value) side by side so
 * a probe touches one cache line, and no object per pair. Not thread-safe.
 */
final class PairTable {
    static final int ABSENT = -1;
    private static final long FREE = -1L;
    private static final float LOAD = 0.6f;

    /** Slot i: {@code table[2i]} the hash, {@code table[2i + 1]} worker in the high half and value in the low, or {@link #FREE}. */
    private long[] table;
    private int size;
    private int mask;
    /** Written by {@link #touch} so the JIT keeps its loads. */
    private long touched;

    PairTable() {
        allocate(16);
    }

    int size() {
        return size;
    }

    /** Reads the home slot of each (hash, worker) pair so that their cache misses overlap (see {@link BlockHolders#touch}). */
    void touch(long[] hashes, int worker) {
        long sum = 0;
        long[] t = table;
        for (long hash : hashes) {
            sum += t[2 * home(hash, worker)];
        }
        touched = sum;
    }

    int get(long hash, int worker) {
        int slot = home(hash, worker);
        long entry;
        while ((entry = table[2 * slot + 1]) != FREE) {
            if (table[2 * slot] == hash && (int) (entry >>> 32) == worker) {
                return (int) entry;
            }
            slot = (slot + 1) & mask;
        }
        return ABSENT;
    }

    void put(long hash, int worker, int value) {
        long packed = ((long) worker << 32) | (value & 0xFFFFFFFFL);
        int slot = home(hash, worker);
        long entry;
        while ((entry = table[2 * slot + 1]) != FREE) {
            if (table[2 * slot] == hash && (int) (entry >>> 32) == worker) {
                table[2 * slot + 1] = packed;
                return;
            }
            slot = (slot + 1) & mask;
        }
        table[2 * slot] = hash;
        table[2 * slot + 1] = packed;
        if (++size > LOAD * (mask + 1)) {
            rehash((mask + 1) * 2);
        }
    }

    void remove(long hash, int worker) {
        int slot = home(hash, worker);
        long entry;
        while ((entry = table[2 * slot + 1]) != FREE) {
            if (table[2 * slot] == hash && (int) (entry >>> 32) == worker) {
                shiftBack(slot);
                size--;
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    private void shiftBack(int hole) {
        int next = (hole + 1) & mask;
        long entry;
        while ((entry = table[2 * next + 1]) != FREE) {
            int home = home(table[2 * next], (int) (entry >>> 32));
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                table[2 * hole] = table[2 * next];
                table[2 * hole + 1] = entry;
                hole = next;
            }
            next = (next + 1) & mask;
        }
        table[2 * hole + 1] = FREE;
    }

    private int home(long hash, int worker) {
        return (int) BlockHolders.mix(hash * 31 + worker) & mask;
    }

    private void allocate(int capacity) {
        table = new long[2 * capacity];
        for (int i = 1; i < table.length; i += 2) {
            table[i] = FREE;
        }
        mask = capacity - 1;
    }

    private void rehash(int capacity) {
        long[] old = table;
        allocate(capacity);
        for (int i = 0; i < old.length; i += 2) {
            long entry = old[i + 1];
            if (entry != FREE) {
                int slot = home(old[i], (int) (entry >>> 32));
                while (table[2 * slot + 1] != FREE) {
                    slot = (slot + 1) & mask;
                }
                table[2 * slot] = old[i];
                table[2 * slot + 1] = entry;
            }
        }
    }
}

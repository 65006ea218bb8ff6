package io.kvroute.router.routing;

import java.util.Arrays;

/** A growable list of ints without boxing (building a {@link FleetView}, a decision's candidate ids). Not thread-safe. */
final class IntList {
    private int[] values = new int[8];
    private int size;

    void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    int get(int index) {
        if (index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        return values[index];
    }

    int size() {
        return size;
    }

    /** Removes the first occurrence of {@code value}, if any. */
    void remove(int value) {
        for (int i = 0; i < size; i++) {
            if (values[i] == value) {
                System.arraycopy(values, i + 1, values, i, size - i - 1);
                size--;
                return;
            }
        }
    }

    int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}

package io.kvroute.router.routing;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map of a score's named components over a fixed key list and a {@code double[]},
 * in key order. A decision shows a few candidates' components; building each as a hash map of
 * boxed doubles was most of what a decision allocated.
 */
public final class ScoreComponents extends AbstractMap<String, Double> {
    private final String[] keys;
    private final double[] values;

    /** {@code keys} is shared and never modified; {@code values} is copied. */
    public ScoreComponents(String[] keys, double... values) {
        if (keys.length != values.length) {
            throw new IllegalArgumentException(keys.length + " keys for " + values.length + " values");
        }
        this.keys = keys;
        this.values = values.clone();
    }

    /** Whether {@code other} names the same components in the same order (one policy's candidates share one key array). */
    public boolean sameNamesAs(ScoreComponents other) {
        return keys == other.keys || Arrays.equals(keys, other.keys);
    }

    /** The component names, in order. */
    public List<String> names() {
        return Collections.unmodifiableList(Arrays.asList(keys));
    }

    /** The values in name order as floats, as a decision record lists them, without a map entry or a Double per value. */
    public List<Float> floatValues() {
        Float[] floats = new Float[values.length];
        for (int i = 0; i < values.length; i++) {
            floats[i] = (float) values[i];
        }
        return Arrays.asList(floats);
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public Double get(Object key) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i].equals(key)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public Set<Entry<String, Double>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return keys.length;
            }

            @Override
            public Iterator<Entry<String, Double>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keys.length;
                    }

                    @Override
                    public Entry<String, Double> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return Map.entry(keys[i], values[i]);
                    }
                };
            }
        };
    }
}

package io.kvroute.router.routing;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map of a score's named components over a fixed key list and a {@code double[]},
 * in key order. A decision shows a few candidates' components; building each as a hash map of
 * boxed doubles was most of what a decision allocated.
 */
final class ScoreComponents extends AbstractMap<String, Double> {
    private final String[] keys;
    private final double[] values;

    /** {@code keys} is shared and never modified; {@code values} is copied. */
    ScoreComponents(String[] keys, double... values) {
        if (keys.length != values.length) {
            throw new IllegalArgumentException(keys.length + " keys for " + values.length + " values");
        }
        this.keys = keys;
        this.values = values.clone();
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

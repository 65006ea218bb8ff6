package io.kvroute.worker.consumer.internal;

import java.util.Collection;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Encodes the offsets finished above a partition's committed offset into the commit's metadata
 * string, so a new owner can skip them. Runs of consecutive offsets are written as
 * {@code gap[-length]} in base 36, the gap counted from the end of the previous run (the first
 * from the committed offset), behind a version tag: {@code f1:2,1-5,3}. Offsets spanning at most
 * {@value #MAX_SPAN_FOR_LIMIT} above the committed offset always stay under
 * {@value #METADATA_LIMIT} characters (Kafka's default {@code offset.metadata.max.bytes} is 4096).
 */
public final class FinishedOffsetsCodec {
    public static final String VERSION_TAG = "f1:";
    public static final int METADATA_LIMIT = 4000;
    /** Worst case alternating runs: span/2 runs of at most "zz-zz," = 6 characters each. */
    public static final int MAX_SPAN_FOR_LIMIT = 1290;

    private FinishedOffsetsCodec() {
    }

    /** Encodes the offsets of {@code finished} above {@code committedOffset}; lower ones are left out. */
    public static String encode(long committedOffset, Collection<Long> finished) {
        NavigableSet<Long> sorted = new TreeSet<>(finished).tailSet(committedOffset, false);
        if (sorted.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(VERSION_TAG);
        long previousEnd = committedOffset;
        Iterator<Long> it = sorted.iterator();
        long runStart = it.next();
        long runEnd = runStart;
        while (true) {
            Long next = it.hasNext() ? it.next() : null;
            if (next != null && next == runEnd + 1) {
                runEnd = next;
                continue;
            }
            if (out.length() > VERSION_TAG.length()) {
                out.append(',');
            }
            out.append(Long.toString(runStart - previousEnd, 36));
            if (runEnd > runStart) {
                out.append('-').append(Long.toString(runEnd - runStart + 1, 36));
            }
            previousEnd = runEnd + 1;
            if (next == null) {
                break;
            }
            runStart = next;
            runEnd = next;
        }
        return out.toString();
    }

    /** The finished offsets in {@code metadata}; empty for null, blank or unrecognised metadata. */
    /** Bound on decoded runs: a worker never tracks more than this many offsets past its commit. */
    static final long MAX_DECODED_SPAN = 1L << 20;

    public static NavigableSet<Long> decode(long committedOffset, String metadata) {
        NavigableSet<Long> out = new TreeSet<>();
        if (metadata == null || !metadata.startsWith(VERSION_TAG) || metadata.length() == VERSION_TAG.length()) {
            return out;
        }
        long previousEnd = committedOffset;
        try {
            for (String run : metadata.substring(VERSION_TAG.length()).split(",")) {
                int dash = run.indexOf('-');
                long gap = Long.parseLong(dash < 0 ? run : run.substring(0, dash), 36);
                long length = dash < 0 ? 1 : Long.parseLong(run.substring(dash + 1), 36);
                long start = previousEnd + gap;
                // no writer tracks finished offsets further than this past the commit: anything beyond is corrupt
                if (gap < 0 || length < 1 || start + length - committedOffset > MAX_DECODED_SPAN) {
                    return new TreeSet<>();
                }
                for (long o = start; o < start + length; o++) {
                    out.add(o);
                }
                previousEnd = start + length;
            }
        } catch (NumberFormatException e) {
            return new TreeSet<>();
        }
        return out;
    }
}

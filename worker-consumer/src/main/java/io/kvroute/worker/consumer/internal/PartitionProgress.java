package io.kvroute.worker.consumer.internal;

import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Which records of one dispatch partition are finished. Continuous batching finishes requests out
 * of order, so the committed offset is the lowest offset not finished (the watermark) and the
 * offsets finished above it travel in the commit's metadata ({@link FinishedOffsetsCodec}). A new
 * owner starts from that commit and {@link #isFinished skips} what was already done, so no
 * finished request runs twice. Used on the poll thread only.
 */
public final class PartitionProgress {
    private final TreeSet<Long> inFlight = new TreeSet<>();
    private final TreeSet<Long> finished = new TreeSet<>();
    private long nextOffset;

    /** Starts from a committed offset and its metadata (or the start position and null). */
    public PartitionProgress(long committedOffset, String committedMetadata) {
        this.nextOffset = committedOffset;
        this.finished.addAll(FinishedOffsetsCodec.decode(committedOffset, committedMetadata));
    }

    /** True if the record at {@code offset} was already finished, by this owner or a previous one. */
    public boolean isFinished(long offset) {
        return finished.contains(offset) || offset < commitOffset() && !inFlight.contains(offset);
    }

    public void started(long offset) {
        inFlight.add(offset);
        seen(offset);
    }

    public void finished(long offset) {
        inFlight.remove(offset);
        finished.add(offset);
        seen(offset);
    }

    /** Forgets a started record without finishing it: it will be run again by whoever reads it next. */
    public void abandoned(long offset) {
        inFlight.remove(offset);
    }

    /**
     * The offset to commit: the lowest one not finished. With nothing in flight that is past every
     * offset seen and past the finished ones right after them, which a previous owner may have
     * finished before this owner read them (they must not be left at the watermark, where the
     * metadata, holding only offsets above it, would drop them).
     */
    public long commitOffset() {
        if (!inFlight.isEmpty()) {
            return inFlight.first();
        }
        long watermark = nextOffset;
        while (finished.contains(watermark)) {
            watermark++;
        }
        return watermark;
    }

    /** The metadata to commit with {@link #commitOffset()}: the offsets finished above it. */
    public String commitMetadata() {
        long committed = commitOffset();
        // what lies below the watermark is done: keep it done once the finished offsets are dropped
        nextOffset = Math.max(nextOffset, committed);
        finished.headSet(committed, true).clear();
        return FinishedOffsetsCodec.encode(committed, finished);
    }

    /** Offsets between the watermark and the highest seen: bounded so the metadata stays small. */
    public long span() {
        return nextOffset - commitOffset();
    }

    public int inFlightCount() {
        return inFlight.size();
    }

    public NavigableSet<Long> finishedAboveWatermark() {
        return new TreeSet<>(finished.tailSet(commitOffset(), false));
    }

    private void seen(long offset) {
        nextOffset = Math.max(nextOffset, offset + 1);
    }
}

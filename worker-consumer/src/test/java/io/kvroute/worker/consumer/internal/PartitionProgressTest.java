package io.kvroute.worker.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class PartitionProgressTest {

    @Test
    void shouldRoundTripFinishedOffsetsThroughTheMetadata() {
        List<Long> finished = List.of(12L, 13L, 14L, 17L, 40L, 41L, 1000L);
        String metadata = FinishedOffsetsCodec.encode(10, finished);
        assertThat(metadata).startsWith(FinishedOffsetsCodec.VERSION_TAG);
        assertThat(FinishedOffsetsCodec.decode(10, metadata)).containsExactlyElementsOf(finished);
    }

    @Test
    void shouldEncodeNothingWhenNothingIsFinishedAboveTheWatermark() {
        assertThat(FinishedOffsetsCodec.encode(10, List.of(3L, 10L))).isEmpty();
        assertThat(FinishedOffsetsCodec.decode(10, "")).isEmpty();
        assertThat(FinishedOffsetsCodec.decode(10, null)).isEmpty();
        assertThat(FinishedOffsetsCodec.decode(10, "something else")).isEmpty();
        assertThat(FinishedOffsetsCodec.decode(10, "f1:zz-x,!")).isEmpty();
        // a run far past anything a worker tracks is corrupt, not a reason to build billions of offsets
        assertThat(FinishedOffsetsCodec.decode(10, "f1:0-zzzzzzzzz")).isEmpty();
    }

    @Test
    void shouldStayUnderTheMetadataLimitInTheWorstCaseSpan() {
        long base = 1_000_000_000L;
        TreeSet<Long> alternate = new TreeSet<>();
        LongStream.range(1, FinishedOffsetsCodec.MAX_SPAN_FOR_LIMIT).filter(i -> i % 2 == 1).forEach(i -> alternate.add(base + i));
        String metadata = FinishedOffsetsCodec.encode(base, alternate);
        assertThat(metadata.length()).isLessThanOrEqualTo(FinishedOffsetsCodec.METADATA_LIMIT);
        assertThat(FinishedOffsetsCodec.decode(base, metadata)).isEqualTo(alternate);
    }

    @Test
    void shouldCommitTheLowestUnfinishedOffsetWithTheFinishedOnesAbove() {
        PartitionProgress progress = new PartitionProgress(100, null);
        for (long o = 100; o < 105; o++) {
            progress.started(o);
        }
        progress.finished(101);
        progress.finished(103);
        progress.finished(104);

        assertThat(progress.commitOffset()).isEqualTo(100);
        assertThat(FinishedOffsetsCodec.decode(100, progress.commitMetadata())).containsExactly(101L, 103L, 104L);

        progress.finished(100);
        assertThat(progress.commitOffset()).isEqualTo(102);
        assertThat(FinishedOffsetsCodec.decode(102, progress.commitMetadata())).containsExactly(103L, 104L);

        progress.finished(102);
        assertThat(progress.commitOffset()).isEqualTo(105);
        assertThat(progress.commitMetadata()).isEmpty();
        assertThat(progress.span()).isZero();
    }

    @Test
    void shouldSkipRecordsAPreviousOwnerFinished() {
        PartitionProgress before = new PartitionProgress(0, null);
        for (long o = 0; o < 6; o++) {
            before.started(o);
        }
        before.finished(0);
        before.finished(2);
        before.finished(5);
        long committed = before.commitOffset();
        String metadata = before.commitMetadata();

        PartitionProgress after = new PartitionProgress(committed, metadata);
        assertThat(committed).isEqualTo(1);
        assertThat(after.isFinished(1)).isFalse();
        assertThat(after.isFinished(2)).isTrue();
        assertThat(after.isFinished(3)).isFalse();
        assertThat(after.isFinished(4)).isFalse();
        assertThat(after.isFinished(5)).isTrue();

        after.started(1);
        assertThat(after.commitOffset()).isEqualTo(1);
        assertThat(FinishedOffsetsCodec.decode(1, after.commitMetadata()))
                .as("finished offsets not yet re-read stay in the metadata").containsExactly(2L, 5L);
    }

    @Test
    void shouldKeepAPreviousOwnersFinishedOffsetsThatFollowTheLastOneSeenWhenNothingIsInFlight() {
        PartitionProgress first = new PartitionProgress(10, null);
        for (long o = 10; o < 14; o++) {
            first.started(o);
        }
        first.finished(12);
        first.finished(13);
        PartitionProgress second = new PartitionProgress(first.commitOffset(), first.commitMetadata());

        // the new owner reruns 10 and 11 and finishes them before it has read 12 (its partition paused)
        second.started(10);
        second.finished(10);
        second.started(11);
        second.finished(11);
        long committed = second.commitOffset();
        PartitionProgress third = new PartitionProgress(committed, second.commitMetadata());

        assertThat(committed).isEqualTo(14);
        assertThat(third.isFinished(12)).as("finished by the first owner, never to run again").isTrue();
        assertThat(third.isFinished(13)).isTrue();
        assertThat(second.isFinished(12)).isTrue();
    }

    @Test
    void shouldAdvanceOverOffsetsThatWereNeverSeen() {
        PartitionProgress progress = new PartitionProgress(10, null);
        progress.started(10);
        progress.finished(10);
        progress.started(12);
        progress.finished(12);
        assertThat(progress.commitOffset()).isEqualTo(13);
        assertThat(progress.isFinished(11)).isTrue();
    }

    @Test
    void shouldMeasureTheSpanFromTheWatermarkToTheHighestSeenOffset() {
        PartitionProgress progress = new PartitionProgress(0, null);
        progress.started(0);
        for (long o = 1; o < 50; o++) {
            progress.started(o);
            progress.finished(o);
        }
        assertThat(progress.span()).isEqualTo(50);
        assertThat(progress.inFlightCount()).isEqualTo(1);
    }
}

package io.kvroute.ingress.client;

import static io.kvroute.ingress.client.ResponseEvents.chunk;
import static io.kvroute.ingress.client.ResponseEvents.duplicateRejection;
import static io.kvroute.ingress.client.ResponseEvents.misKeyedRejection;
import static io.kvroute.ingress.client.ResponseEvents.terminal;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResponseAssemblerTest {
    private static final long GRACE_MS = 1_000;

    private final List<Chunk> chunks = new ArrayList<>();
    private final List<Completion> completions = new ArrayList<>();
    private final List<DuplicateRejection> duplicates = new ArrayList<>();
    private final ResponseListener listener = new ResponseListener() {
        @Override
        public void onChunk(Chunk chunk) {
            chunks.add(chunk);
        }

        @Override
        public void onCompletion(Completion completion) {
            completions.add(completion);
        }

        @Override
        public void onDuplicateRejected(DuplicateRejection rejection) {
            duplicates.add(rejection);
        }
    };
    private final ResponseAssembler assembler = new ResponseAssembler(listener, GRACE_MS);

    @Test
    void shouldAssembleChunksInOrderAndCompleteOnTheTerminal() {
        assembler.accept(chunk("r1", 1, 0, "Hel"), 0);
        assembler.accept(chunk("r1", 1, 1, "lo"), 0);
        assertThat(completions).isEmpty();

        assembler.accept(terminal("r1", 1, 2, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.requestId()).isEqualTo("r1");
            assertThat(c.customId()).isEqualTo("c-r1");
            assertThat(c.status()).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(c.text()).isEqualTo("Hello");
            assertThat(c.finishReason()).isEqualTo("length");
            assertThat(c.usage()).isEqualTo(new TokenUsage(100, 2, 64));
            assertThat(c.ttftMs()).isEqualTo(42L);
            assertThat(c.workerId()).isEqualTo("w-1");
            assertThat(c.region()).isEqualTo("eu-west");
            assertThat(c.attempt()).isEqualTo(1);
            assertThat(c.textComplete()).isTrue();
        });
        assertThat(assembler.pendingRequests()).isZero();
    }

    @Test
    void shouldOrderOutOfOrderChunksAndStreamThemInSequence() {
        assembler.accept(chunk("r1", 1, 2, "c"), 0);
        assembler.accept(chunk("r1", 1, 0, "a"), 0);
        assertThat(chunks).extracting(Chunk::text).containsExactly("a");

        assembler.accept(chunk("r1", 1, 1, "b"), 0);
        assembler.accept(terminal("r1", 1, 3, ResponseStatus.COMPLETED), 0);

        assertThat(chunks).extracting(Chunk::sequence).containsExactly(0, 1, 2);
        assertThat(completions).singleElement().extracting(Completion::text).isEqualTo("abc");
    }

    @Test
    void shouldDropDuplicateChunks() {
        assembler.accept(chunk("r1", 1, 0, "a"), 0);
        assembler.accept(chunk("r1", 1, 0, "a"), 0);
        assembler.accept(chunk("r1", 1, 1, "b"), 0);
        assembler.accept(chunk("r1", 1, 0, "a"), 0);
        assembler.accept(terminal("r1", 1, 2, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().extracting(Completion::text).isEqualTo("ab");
        assertThat(chunks).hasSize(2);
        assertThat(assembler.duplicatesDropped()).isEqualTo(2);
    }

    @Test
    void shouldDropTheChunksOfASupersededAttempt() {
        assembler.accept(chunk("r1", 1, 0, "old-"), 0);
        assembler.accept(chunk("r1", 1, 1, "stale"), 0);
        assembler.accept(chunk("r1", 2, 0, "new"), 0);
        assembler.accept(chunk("r1", 1, 2, "late-old"), 0);
        assembler.accept(terminal("r1", 1, 3, ResponseStatus.FAILED), 0);
        assembler.accept(chunk("r1", 2, 1, "!"), 0);
        assertThat(completions).isEmpty();

        assembler.accept(terminal("r1", 2, 2, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.text()).isEqualTo("new!");
            assertThat(c.attempt()).isEqualTo(2);
            assertThat(c.status()).isEqualTo(ResponseStatus.COMPLETED);
        });
        assertThat(chunks).extracting(Chunk::attempt, Chunk::sequence)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 0), org.assertj.core.groups.Tuple.tuple(1, 1),
                        org.assertj.core.groups.Tuple.tuple(2, 0), org.assertj.core.groups.Tuple.tuple(2, 1));
    }

    @Test
    void shouldSkipAHandBackAndTakeTheNextAttemptsResult() {
        assembler.accept(chunk("r1", 1, 0, "half"), 0);
        ResponseEvent handBack = chunk("r1", 1, 1, null);
        handBack.setHandedBack("rate limited: server rate limit (HTTP 429)");
        assembler.accept(handBack, 0);
        assembler.flushTerminated();
        assertThat(completions).as("a hand-back is not a result").isEmpty();
        assertThat(chunks).as("nor a chunk").extracting(Chunk::sequence).containsExactly(0);

        assembler.accept(chunk("r1", 2, 0, "whole"), 0);
        assembler.accept(terminal("r1", 2, 1, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.text()).isEqualTo("whole");
            assertThat(c.attempt()).isEqualTo(2);
        });
    }

    @Test
    void shouldLetALaterTryOfTheSameAttemptOutrankAnEarlierOneAndIgnoreTheEarlierAfterwards() {
        assembler.accept(chunk("r1", 65_537, 0, "cut-"), 0);
        assembler.accept(chunk("r1", 65_537, 1, "off"), 0);
        assembler.accept(retried(chunk("r1", 65_537, 0, "whole "), 1), 0);
        assembler.accept(chunk("r1", 65_537, 2, "late-first-try"), 0);
        assembler.accept(retried(chunk("r1", 65_537, 1, "answer"), 1), 0);

        assembler.accept(retried(terminal("r1", 65_537, 2, ResponseStatus.COMPLETED), 1), 0);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.text()).isEqualTo("whole answer");
            assertThat(c.attempt()).isEqualTo(65_537);
        });
    }

    @Test
    void shouldStillLetAHigherAttemptOutrankEveryTryOfALowerOne() {
        assembler.accept(retried(chunk("r1", 65_537, 0, "third try of the old run"), 2), 0);
        assembler.accept(chunk("r1", 131_073, 0, "new run"), 0);
        assembler.accept(retried(terminal("r1", 65_537, 1, ResponseStatus.COMPLETED), 2), 0);
        assertThat(completions).isEmpty();

        assembler.accept(terminal("r1", 131_073, 1, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().satisfies(c -> assertThat(c.text()).isEqualTo("new run"));
    }

    private static ResponseEvent retried(ResponseEvent event, int retry) {
        event.setRetry(retry);
        return event;
    }

    @Test
    void shouldEmitOneCompletionForTwoTerminals() {
        assembler.accept(chunk("r1", 1, 0, "x"), 0);
        assembler.accept(terminal("r1", 1, 1, ResponseStatus.COMPLETED), 0);
        assembler.accept(terminal("r1", 1, 1, ResponseStatus.COMPLETED), 0);
        assembler.accept(chunk("r1", 1, 0, "x"), 0);

        assertThat(completions).hasSize(1);
        assertThat(assembler.lateDropped()).isEqualTo(2);
    }

    @Test
    void shouldIgnoreAnyLaterAttemptOnceCompleted() {
        assembler.accept(terminal("r1", 1, 0, ResponseStatus.REJECTED), 0);
        assembler.accept(chunk("r1", 2, 0, "x"), 0);
        assembler.accept(terminal("r1", 2, 1, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().extracting(Completion::status).isEqualTo(ResponseStatus.REJECTED);
    }

    @Test
    void shouldCompleteARouterRejectionAtOnceWithNoText() {
        assembler.accept(terminal("r1", 1, 0, ResponseStatus.REJECTED), 5);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(ResponseStatus.REJECTED);
            assertThat(c.text()).isEmpty();
            assertThat(c.error()).isEqualTo("no capacity");
            assertThat(c.isCompleted()).isFalse();
            assertThat(c.textComplete()).isTrue();
        });
    }

    @Test
    void shouldWaitForChunksThatArriveAfterTheirTerminal() {
        assembler.accept(chunk("r1", 1, 0, "a"), 0);
        assembler.accept(terminal("r1", 1, 3, ResponseStatus.COMPLETED), 0);
        assembler.accept(chunk("r1", 1, 2, "c"), 10);
        assembler.expire(GRACE_MS - 1);
        assertThat(completions).isEmpty();

        assembler.accept(chunk("r1", 1, 1, "b"), 20);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.text()).isEqualTo("abc");
            assertThat(c.textComplete()).isTrue();
        });
    }

    @Test
    void shouldEmitWhatArrivedWhenChunksAreStillMissingAfterTheGrace() {
        assembler.accept(chunk("r1", 1, 0, "a"), 0);
        assembler.accept(chunk("r1", 1, 2, "c"), 0);
        assembler.accept(terminal("r1", 1, 3, ResponseStatus.COMPLETED), 100);
        assembler.expire(100 + GRACE_MS);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.text()).isEqualTo("ac");
            assertThat(c.textComplete()).isFalse();
        });
        assembler.accept(chunk("r1", 1, 1, "b"), 2_000);
        assertThat(completions).hasSize(1);
    }

    @Test
    void shouldDropChunksAtOrPastTheTerminalSequence() {
        assembler.accept(terminal("r1", 1, 1, ResponseStatus.COMPLETED), 0);
        assembler.accept(chunk("r1", 1, 5, "bogus"), 0);
        assembler.accept(chunk("r1", 1, 0, "ok"), 0);

        assertThat(completions).singleElement().extracting(Completion::text).isEqualTo("ok");
    }

    @Test
    void shouldKeepRequestsApart() {
        assembler.accept(chunk("a", 1, 0, "A"), 0);
        assembler.accept(chunk("b", 1, 0, "B"), 0);
        assembler.accept(terminal("b", 1, 1, ResponseStatus.COMPLETED), 0);
        assembler.accept(terminal("a", 1, 1, ResponseStatus.COMPLETED), 0);

        assertThat(completions).extracting(Completion::requestId, Completion::text)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("b", "B"), org.assertj.core.groups.Tuple.tuple("a", "A"));
    }

    @Test
    void shouldIgnoreRequestsItDoesNotTrack() {
        ResponseAssembler mine = new ResponseAssembler(listener, Set.of("mine")::contains, GRACE_MS, 10);

        mine.accept(terminal("other", 1, 0, ResponseStatus.REJECTED), 0);
        mine.accept(terminal("mine", 1, 0, ResponseStatus.REJECTED), 0);

        assertThat(completions).extracting(Completion::requestId).containsExactly("mine");
        assertThat(mine.pendingRequests()).isZero();
    }

    @Test
    void shouldFlushTerminatedRequestsButKeepUnterminatedOnes() {
        assembler.accept(chunk("open", 1, 0, "x"), 0);
        assembler.accept(terminal("gap", 1, 2, ResponseStatus.COMPLETED), 0);

        assembler.flushTerminated();

        assertThat(completions).extracting(Completion::requestId).containsExactly("gap");
        assertThat(assembler.pendingRequests()).isEqualTo(1);
    }

    @Test
    void shouldNeverEndARequestOnADuplicateRejectionBeforeDuringOrAfterItsRun() {
        assembler.accept(duplicateRejection("r1"), 0);
        assembler.accept(chunk("r1", 65_537, 0, "Hel"), 0);
        assembler.accept(duplicateRejection("r1"), 0);
        assembler.accept(chunk("r1", 65_537, 1, "lo"), 0);
        assertThat(completions).isEmpty();

        assembler.accept(terminal("r1", 65_537, 2, ResponseStatus.COMPLETED), 0);
        assembler.accept(duplicateRejection("r1"), 0);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(c.text()).isEqualTo("Hello");
            assertThat(c.customId()).isEqualTo("c-r1");
            assertThat(c.attempt()).isEqualTo(65_537);
        });
        assertThat(chunks).extracting(Chunk::text).containsExactly("Hel", "lo");
        assertThat(duplicates).hasSize(3).allSatisfy(d -> {
            assertThat(d.requestId()).isEqualTo("r1");
            assertThat(d.customId()).isEqualTo("dup-r1");
            assertThat(d.reason()).startsWith("duplicate_request_id");
        });
        assertThat(assembler.duplicateSubmissions()).isEqualTo(3);
        assertThat(assembler.lateDropped()).isZero();
    }

    @Test
    void shouldKeepARouterAnswerOfTheFirstRequestAsItsResultDespiteADuplicateBeforeIt() {
        assembler.accept(duplicateRejection("r1"), 0);
        assertThat(assembler.pendingRequests()).isZero();

        assembler.accept(terminal("r1", 1, 0, ResponseStatus.CANCELLED), 0);

        assertThat(completions).extracting(Completion::status).containsExactly(ResponseStatus.CANCELLED);
        assertThat(duplicates).hasSize(1);
    }

    @Test
    void shouldNotEndTheNamedRequestOnTheRejectionOfAMisKeyedRecordNamingIt() {
        assembler.accept(misKeyedRejection("victim"), 0);
        assertThat(completions).isEmpty();
        assertThat(assembler.isFinished("victim")).isFalse();

        assembler.accept(chunk("victim", 1, 0, "ok"), 0);
        assembler.accept(terminal("victim", 1, 1, ResponseStatus.COMPLETED), 0);

        assertThat(completions).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(c.text()).isEqualTo("ok");
        });
        assertThat(duplicates).singleElement().satisfies(d -> assertThat(d.reason()).startsWith("key_mismatch"));
    }

    @Test
    void shouldNotReportDuplicateRejectionsOfUntrackedRequests() {
        ResponseAssembler mine = new ResponseAssembler(listener, Set.of("mine")::contains, GRACE_MS, 10);

        mine.accept(duplicateRejection("other"), 0);

        assertThat(duplicates).isEmpty();
        assertThat(mine.duplicateSubmissions()).isZero();
    }
}

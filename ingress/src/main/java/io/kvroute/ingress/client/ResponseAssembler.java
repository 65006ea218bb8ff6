package io.kvroute.ingress.client;

import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Turns the events of {@code <prefix>.responses} into ordered chunks and exactly one
 * {@link Completion} per request id. Pure: no Kafka, time passed in. Every reader of the responses
 * topic follows the same <b>response rule</b>:
 * <ol>
 *   <li>An event with {@code duplicate = true} is not part of the request at all: it is the
 *       router's REJECTED answer to a later submission that reused an already accepted request id,
 *       or to a record whose key was not its request id (attempt 0, sequence 0). It never ends the request, never starts or outranks an attempt,
 *       and is dropped before the steps below, whenever it arrives (before, during or after the
 *       request's own events). It is reported apart ({@link ResponseListener#onDuplicateRejected}).</li>
 *   <li>Events are grouped by request id (the record key).</li>
 *   <li>Only the highest attempt seen for a request counts: when a higher attempt appears, what was
 *       kept of the lower one is dropped, and later events of a lower attempt are ignored. Within an
 *       attempt, a higher {@code retry} (the worker tried again after a transient server failure)
 *       outranks a lower one the same way: runs are ordered by (attempt, retry).</li>
 *   <li>Chunks are ordered by {@code sequence}; a second event with the same (attempt, sequence)
 *       is a duplicate (chunks are produced at-least-once) and is dropped.</li>
 *   <li>The first terminal event of the highest attempt is the result; any later terminal of that
 *       attempt is dropped. Its {@code sequence} n says the attempt produced chunks 0..n-1.</li>
 *   <li>A completion is emitted once the terminal and all its chunks 0..n-1 are in; then the
 *       request is finished for this reader, and any later event for it is ignored.</li>
 * </ol>
 *
 * <p>Why waiting for chunks after the terminal is rare but kept: chunks and the terminal share the
 * key, hence the partition, and a worker writes its chunks before the transaction holding the
 * terminal commits, so a {@code read_committed} reader normally sees every chunk first. A chunk
 * whose produce was retried could still land after the terminal, so a terminal with missing
 * chunks waits up to {@code graceMs} (checked by {@link #expire(long)}); after that the completion
 * is emitted with the chunks at hand and {@code textComplete = false}. The router's REJECTED
 * terminals (attempt 1, sequence 0) complete at once.
 *
 * <p>A filter limits the requests tracked (a client cares only about its own); finished ids are
 * remembered up to a bound so a late duplicate cannot produce a second completion. Not thread-safe:
 * one reader thread feeds it.
 */
public final class ResponseAssembler {
    public static final int DEFAULT_FINISHED_MEMORY = 1_000_000;

    private final ResponseListener listener;
    private final Predicate<String> tracked;
    private final long graceMs;
    private final Map<String, RequestState> pending = new HashMap<>();
    private final Map<String, Boolean> finished;
    private long duplicatesDropped;
    private long supersededDropped;
    private long lateDropped;
    private long duplicateSubmissions;
    private long completions;

    public ResponseAssembler(ResponseListener listener, Predicate<String> tracked, long graceMs, int finishedMemory) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.tracked = Objects.requireNonNull(tracked, "tracked");
        this.graceMs = graceMs;
        this.finished = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > finishedMemory;
            }
        };
    }

    public ResponseAssembler(ResponseListener listener, long graceMs) {
        this(listener, id -> true, graceMs, DEFAULT_FINISHED_MEMORY);
    }

    /** Takes one event, seen at {@code nowMs}; may call the listener (chunks, then a completion). */
    public void accept(ResponseEvent event, long nowMs) {
        String id = event.getRequestId();
        if (!tracked.test(id)) {
            return;
        }
        if (event.getDuplicate()) {
            duplicateSubmissions++;
            listener.onDuplicateRejected(new DuplicateRejection(id, event.getCustomId(),
                    event.getTerminal() == null ? null : event.getTerminal().getError(), event.getProducedAtMs()));
            return;
        }
        if (finished.containsKey(id)) {
            lateDropped++;
            return;
        }
        RequestState state = pending.computeIfAbsent(id, RequestState::new);
        long rank = rank(event);
        if (rank < state.rank) {
            supersededDropped++;
            return;
        }
        if (rank > state.rank) {
            supersededDropped += state.chunks.size() + (state.terminal == null ? 0 : 1);
            state.startAttempt(event.getAttempt(), rank);
        }
        if (event.getCustomId() != null) {
            state.customId = event.getCustomId();
        }
        if (event.getHandedBack() != null) {
            // a run its server refused for a rate limit: no result; the router's next attempt writes it
            return;
        }
        if (event.getTerminal() != null) {
            acceptTerminal(state, event, nowMs);
        } else {
            acceptChunk(state, event);
        }
        completeIfWhole(state);
    }

    /** Emits the completions whose terminal has waited {@code graceMs} for missing chunks. */
    public void expire(long nowMs) {
        Iterator<RequestState> it = pending.values().iterator();
        while (it.hasNext()) {
            RequestState state = it.next();
            if (state.terminal != null && nowMs - state.terminalSeenAtMs >= graceMs) {
                it.remove();
                finish(state, false);
            }
        }
    }

    /** Emits every completion whose terminal has arrived, missing chunks or not (end of a collect). */
    public void flushTerminated() {
        expire(Long.MAX_VALUE);
    }

    public int pendingRequests() {
        return pending.size();
    }

    public boolean isFinished(String requestId) {
        return finished.containsKey(requestId);
    }

    public long completions() {
        return completions;
    }

    public long duplicatesDropped() {
        return duplicatesDropped;
    }

    public long supersededDropped() {
        return supersededDropped;
    }

    public long lateDropped() {
        return lateDropped;
    }

    /** Rejected duplicate submissions seen (events with {@code duplicate = true}); none of them completed anything. */
    public long duplicateSubmissions() {
        return duplicateSubmissions;
    }

    private void acceptTerminal(RequestState state, ResponseEvent event, long nowMs) {
        if (state.terminal != null) {
            duplicatesDropped++;
            return;
        }
        state.terminal = event.getTerminal();
        state.terminalTenant = event.getTenant();
        state.terminalSequence = event.getSequence();
        state.terminalSeenAtMs = nowMs;
        state.terminalProducedAtMs = event.getProducedAtMs();
        state.chunks.tailMap(state.terminalSequence, true).clear();
    }

    private void acceptChunk(RequestState state, ResponseEvent event) {
        int sequence = event.getSequence();
        boolean pastTerminal = state.terminal != null && sequence >= state.terminalSequence;
        if (sequence < 0 || pastTerminal || state.chunks.containsKey(sequence)) {
            duplicatesDropped++;
            return;
        }
        state.chunks.put(sequence, event.getTextDelta() == null ? "" : event.getTextDelta());
        while (state.chunks.containsKey(state.nextToDeliver)) {
            int next = state.nextToDeliver++;
            listener.onChunk(new Chunk(state.requestId, state.attempt, next, state.chunks.get(next)));
        }
    }

    private void completeIfWhole(RequestState state) {
        if (state.terminal != null && state.nextToDeliver >= state.terminalSequence) {
            pending.remove(state.requestId);
            finish(state, true);
        }
    }

    private void finish(RequestState state, boolean whole) {
        finished.put(state.requestId, Boolean.TRUE);
        completions++;
        StringBuilder text = new StringBuilder();
        state.chunks.values().forEach(text::append);
        TerminalResult t = state.terminal;
        Usage usage = t.getUsage();
        listener.onCompletion(new Completion(
                state.requestId,
                state.customId,
                t.getStatus(),
                text.toString(),
                t.getFinishReason(),
                usage == null ? TokenUsage.NONE : new TokenUsage(usage.getPromptTokens(), usage.getCompletionTokens(), usage.getCachedTokens()),
                t.getTtftMs(),
                t.getWorkerId(),
                t.getRegion(),
                t.getError(),
                state.attempt,
                state.terminalProducedAtMs,
                whole,
                state.terminalTenant,
                t.getModel()));
    }

    /** Orders runs by (attempt, retry); a retry number is far below 2^16. */
    static long rank(ResponseEvent event) {
        return ((long) event.getAttempt() << 16) | Math.min(Math.max(event.getRetry(), 0), 0xFFFF);
    }

    private static final class RequestState {
        private final String requestId;
        private final TreeMap<Integer, String> chunks = new TreeMap<>();
        private String customId;
        private int attempt = Integer.MIN_VALUE;
        private long rank = Long.MIN_VALUE;
        private int nextToDeliver;
        private TerminalResult terminal;
        private String terminalTenant;
        private int terminalSequence;
        private long terminalSeenAtMs;
        private long terminalProducedAtMs;

        private RequestState(String requestId) {
            this.requestId = requestId;
        }

        private void startAttempt(int newAttempt, long newRank) {
            attempt = newAttempt;
            rank = newRank;
            chunks.clear();
            nextToDeliver = 0;
            terminal = null;
        }
    }
}

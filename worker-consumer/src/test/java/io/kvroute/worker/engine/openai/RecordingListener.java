package io.kvroute.worker.engine.openai;

import io.kvroute.worker.engine.EngineFailure;
import io.kvroute.worker.engine.EngineListener;
import io.kvroute.worker.engine.EngineUsage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what an engine reports for one request, in order. */
final class RecordingListener implements EngineListener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final StringBuffer text = new StringBuffer();
    /** The text of each tokens event, in order. */
    final List<String> deltas = new CopyOnWriteArrayList<>();
    volatile Long firstTokenTtftMs;
    volatile String finishReason;
    volatile EngineUsage usage;
    volatile Long ttftMs;
    volatile EngineFailure failure;

    @Override
    public void onFirstToken(long ttftMs) {
        events.add("first");
        firstTokenTtftMs = ttftMs;
    }

    @Override
    public void onTokens(String textDelta, int count) {
        events.add("tokens");
        deltas.add(textDelta);
        text.append(textDelta);
    }

    @Override
    public void onFinished(String finishReason, EngineUsage usage, long ttftMs) {
        events.add("finished");
        this.finishReason = finishReason;
        this.usage = usage;
        this.ttftMs = ttftMs;
    }

    @Override
    public void onFailed(String error) {
        throw new AssertionError("the engine must report failures classified, got " + error);
    }

    @Override
    public void onFailure(EngineFailure failure) {
        events.add("failed");
        this.failure = failure;
    }

    boolean ended() {
        return events.contains("finished") || events.contains("failed");
    }

    int tokenEvents() {
        return (int) events.stream().filter("tokens"::equals).count();
    }
}

package io.kvroute.router.topology.internal;

import io.kvroute.router.admission.RequestValidator;
import io.kvroute.router.routing.LatencyClass;
import io.kvroute.router.routing.fairness.FairQueue;
import io.kvroute.schemas.v1.InferenceRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The fair queue of each routing task, shared with the task's {@link ResultTracker} so that a
 * tenant's virtual token counter is corrected by what its served requests actually used when
 * their results arrive ({@link FairQueue#settle}). One instance per topology build; a task's
 * entry is made when its routing processor starts and dropped when it closes.
 *
 * <p>The counters live in memory: after a restart or a task migration the queue is rebuilt from
 * the parked store in arrival order and every tenant's counter starts at 0, which VTC tolerates
 * (a counter only orders backlogged tenants, and new backlogs are lifted to the smallest one).
 */
public final class FairShares {
    /** Served-but-unsettled charges kept per task; the oldest is forgotten past this (its result never came). */
    static final int MAX_UNSETTLED = 100_000;

    private final Map<TaskId, TaskQueue> tasks = new ConcurrentHashMap<>();

    TaskQueue open(TaskId task) {
        TaskQueue queue = new TaskQueue();
        tasks.put(task, queue);
        return queue;
    }

    void close(TaskId task, TaskQueue queue) {
        tasks.remove(task, queue);
    }

    /** Corrects the tenant's counter for a served request by its actual usage; a no-op for one not served from the queue. */
    void settle(TaskId task, String requestId, long promptTokens, long outputTokens) {
        TaskQueue queue = tasks.get(task);
        if (queue != null) {
            queue.settle(requestId, promptTokens, outputTokens);
        }
    }

    /** One task's fair queue of parked-store keys and its unsettled charges (used by that task's thread only). */
    static final class TaskQueue {
        private final FairQueue<String> queue = new FairQueue<>();
        private final Map<String, FairQueue.Served<String>> unsettled = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, FairQueue.Served<String>> eldest) {
                return size() > MAX_UNSETTLED;
            }
        };

        void add(String key, InferenceRequest request) {
            queue.add(key, flow(request), latencyClass(request), RequestValidator.promptTokens(request), request.getMaxTokens());
        }

        void remove(String key, InferenceRequest request) {
            queue.remove(key, flow(request), latencyClass(request));
        }

        /**
         * Whose turn a request waits for: its tenant's, among the tenant's requests for the same model and
         * regions. Only a flow's oldest request is tried, so one that fits nowhere (its only region is full)
         * must not hold the tenant's requests that could run elsewhere.
         */
        private static String flow(InferenceRequest request) {
            List<String> regions = request.getAllowedRegions() == null ? List.of() : request.getAllowedRegions();
            return Conversions.nullToEmpty(request.getTenant()) + '\u0000' + request.getModel() + '\u0000' + new TreeSet<>(regions);
        }

        private static LatencyClass latencyClass(InferenceRequest request) {
            return LatencyClass.of(request.getPriority() == null ? null : request.getPriority().name());
        }

        /** Serves the next key {@code dispatch} accepts, remembering the charge under {@code requestId(key)} to settle. */
        Optional<String> serveNext(Predicate<String> dispatch, Function<String, String> requestId) {
            Optional<FairQueue.Served<String>> served = queue.serveNext(dispatch);
            served.ifPresent(s -> unsettled.put(requestId.apply(s.item()), s));
            return served.map(FairQueue.Served::item);
        }

        void settle(String requestId, long promptTokens, long outputTokens) {
            FairQueue.Served<String> served = unsettled.remove(requestId);
            if (served != null) {
                queue.settle(served, promptTokens, outputTokens);
            }
        }
    }
}

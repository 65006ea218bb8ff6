package io.kvroute.router.routing.fairness;

import io.kvroute.router.routing.LatencyClass;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The router's queue of requests waiting for capacity, served by priority and, within a priority,
 * fairly between tenants by tokens served: a virtual token counter per tenant (VTC, Sheng et al.,
 * "Fairness in Serving Large Language Models", OSDI '24). The backlogged tenant with the smallest
 * counter goes next; serving a request charges its tenant {@code promptWeight * prompt +
 * outputWeight * expected output}, corrected by {@link #settle} when the actual usage is known. A
 * tenant that was not backlogged has its counter lifted to the smallest backlogged one (or the
 * last served one's), so idling earns no credit to starve others later. INTERACTIVE requests
 * always go before BATCH ones; each class keeps its own counters.
 *
 * <p>Clock-free and single-threaded; a tenant's own requests leave in the order they came, and
 * tenants with equal counters in the order their head requests came. Backlogged tenants are kept
 * ordered, so serving costs O(log tenants) when the first tenant's head can be dispatched.
 *
 * @param <T> what is queued (a request, an id)
 */
public final class FairQueue<T> {
    public static final double DEFAULT_PROMPT_WEIGHT = 1.0;
    public static final double DEFAULT_OUTPUT_WEIGHT = 1.0;
    /**
     * Tenants a class keeps before a new one makes it forget its idle ones (nothing queued): tenant names come from
     * requests, so the map must not grow with them. A forgotten tenant that comes back starts at the floor as a new one
     * does, ahead of where its counter was by what it was served while the floor stood still: fairness over the last
     * {@value} tenants is exact, beyond that approximate.
     */
    static final int SWEEP_TENANTS_AT = 1_024;

    private final double promptWeight;
    private final double outputWeight;
    private final Map<LatencyClass, ClassQueue> classes = new EnumMap<>(LatencyClass.class);
    private int size;
    private long sequence;

    public FairQueue() {
        this(DEFAULT_PROMPT_WEIGHT, DEFAULT_OUTPUT_WEIGHT);
    }

    public FairQueue(double promptWeight, double outputWeight) {
        if (!(promptWeight >= 0) || !(outputWeight >= 0) || promptWeight + outputWeight == 0) {
            throw new IllegalArgumentException("token weights must not be negative nor both 0, were "
                    + promptWeight + " and " + outputWeight);
        }
        this.promptWeight = promptWeight;
        this.outputWeight = outputWeight;
        for (LatencyClass c : LatencyClass.values()) {
            classes.put(c, new ClassQueue());
        }
    }

    /** A served request: the item and what its tenant was charged, to {@link #settle} later. */
    public record Served<T>(T item, String tenant, LatencyClass latencyClass, double charged) {
    }

    /**
     * Queues {@code item} behind its tenant's earlier ones.
     *
     * @param expectedOutputTokens output tokens charged when served (e.g. max tokens), corrected by {@link #settle}
     */
    public void add(T item, String tenant, LatencyClass latencyClass, long promptTokens, long expectedOutputTokens) {
        ClassQueue queue = classes.get(latencyClass);
        if (queue.tenants.size() >= SWEEP_TENANTS_AT && !queue.tenants.containsKey(tenant)) {
            queue.forgetIdle();
        }
        TenantQueue tenantQueue = queue.tenants.computeIfAbsent(tenant, TenantQueue::new);
        Entry<T> entry = new Entry<>(item, cost(promptTokens, expectedOutputTokens), sequence++);
        if (tenantQueue.items.isEmpty()) {
            tenantQueue.counter = Math.max(tenantQueue.counter, queue.floor());
            tenantQueue.items.add(entry);
            queue.backlogged.add(tenantQueue);
        } else {
            tenantQueue.items.add(entry);
        }
        size++;
    }

    /** Serves the next request: the first tenant head (in fair order) that {@code dispatch} accepts. */
    public Optional<Served<T>> serveNext(Predicate<T> dispatch) {
        for (LatencyClass c : LatencyClass.values()) {
            ClassQueue queue = classes.get(c);
            TenantQueue chosen = null;
            for (TenantQueue tenantQueue : queue.backlogged) {
                if (dispatch.test(tenantQueue.items.peek().item())) {
                    chosen = tenantQueue;
                    break;
                }
            }
            if (chosen != null) {
                queue.backlogged.remove(chosen);
                Entry<T> head = chosen.items.poll();
                size--;
                queue.lastServed = chosen.counter;
                chosen.counter += head.cost();
                if (!chosen.items.isEmpty()) {
                    queue.backlogged.add(chosen);
                }
                return Optional.of(new Served<>(head.item(), chosen.tenant, c, head.cost()));
            }
        }
        return Optional.empty();
    }

    /** The next request without serving it, or empty when the queue is empty. */
    public Optional<T> peek() {
        for (LatencyClass c : LatencyClass.values()) {
            ClassQueue queue = classes.get(c);
            if (!queue.backlogged.isEmpty()) {
                return Optional.of(queue.backlogged.first().items.peek().item());
            }
        }
        return Optional.empty();
    }

    /** Removes a queued request (cancelled, expired, rejected); false if it is not queued. */
    public boolean remove(T item, String tenant, LatencyClass latencyClass) {
        ClassQueue queue = classes.get(latencyClass);
        TenantQueue tenantQueue = queue.tenants.get(tenant);
        if (tenantQueue == null || tenantQueue.items.stream().noneMatch(e -> e.item().equals(item))) {
            return false;
        }
        queue.backlogged.remove(tenantQueue);
        tenantQueue.items.removeIf(e -> e.item().equals(item));
        if (!tenantQueue.items.isEmpty()) {
            queue.backlogged.add(tenantQueue);
        }
        size--;
        return true;
    }

    /** Corrects a served request's charge by what it actually used. */
    public void settle(Served<T> served, long actualPromptTokens, long actualOutputTokens) {
        ClassQueue queue = classes.get(served.latencyClass());
        TenantQueue tenantQueue = queue.tenants.get(served.tenant());
        if (tenantQueue == null) {
            return;
        }
        boolean backlogged = !tenantQueue.items.isEmpty();
        if (backlogged) {
            queue.backlogged.remove(tenantQueue);
        }
        tenantQueue.counter += cost(actualPromptTokens, actualOutputTokens) - served.charged();
        if (backlogged) {
            queue.backlogged.add(tenantQueue);
        }
    }

    /** A tenant's virtual token counter in a class (0 if it never queued there). */
    public double counter(String tenant, LatencyClass latencyClass) {
        TenantQueue tenantQueue = classes.get(latencyClass).tenants.get(tenant);
        return tenantQueue == null ? 0.0 : tenantQueue.counter;
    }

    /** Tenants the queue keeps state for, queued or not (bounded: see {@link #SWEEP_TENANTS_AT}). */
    int tenantsKept() {
        return classes.values().stream().mapToInt(c -> c.tenants.size()).sum();
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    private double cost(long promptTokens, long outputTokens) {
        return promptWeight * Math.max(0, promptTokens) + outputWeight * Math.max(0, outputTokens);
    }

    private record Entry<T>(T item, double cost, long sequence) {
    }

    private final class TenantQueue {
        final String tenant;
        final ArrayDeque<Entry<T>> items = new ArrayDeque<>();
        double counter;

        TenantQueue(String tenant) {
            this.tenant = tenant;
        }
    }

    /**
     * One priority class: its tenants, the backlogged ones (exactly those with queued items) ordered
     * by (counter, head's arrival) — a tenant's key fields change only while it is out of the set —
     * and the last served counter.
     */
    private final class ClassQueue {
        final Map<String, TenantQueue> tenants = new HashMap<>();
        final TreeSet<TenantQueue> backlogged = new TreeSet<>(Comparator.<TenantQueue>comparingDouble(q -> q.counter)
                .thenComparingLong(q -> q.items.peek().sequence()));
        double lastServed;

        /** The smallest counter among backlogged tenants, or the last served one's when none is backlogged. */
        double floor() {
            return backlogged.isEmpty() ? lastServed : backlogged.first().counter;
        }

        /** Drops the tenants with nothing queued. */
        void forgetIdle() {
            tenants.values().removeIf(q -> q.items.isEmpty());
        }
    }
}

package io.kvroute.router.routing.fairness;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.routing.LatencyClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FairQueueTest {
    private final FairQueue<String> queue = new FairQueue<>();

    private List<String> drain(int n) {
        List<String> served = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Optional<FairQueue.Served<String>> s = queue.serveNext(item -> true);
            if (s.isEmpty()) {
                break;
            }
            served.add(s.get().item());
        }
        return served;
    }

    @Test
    void shouldServeInteractiveRequestsBeforeBatchOnes() {
        queue.add("b1", "t1", LatencyClass.BATCH, 10, 10);
        queue.add("i1", "t2", LatencyClass.INTERACTIVE, 10, 10);
        queue.add("b2", "t2", LatencyClass.BATCH, 10, 10);
        queue.add("i2", "t1", LatencyClass.INTERACTIVE, 10, 10);

        assertThat(drain(4)).containsExactly("i1", "i2", "b1", "b2");
    }

    @Test
    void shouldNotLetAHugeBatchStarveASmallTenant() {
        for (int i = 0; i < 1_000; i++) {
            queue.add("big-" + i, "big", LatencyClass.BATCH, 1_000, 200);
        }
        for (int i = 0; i < 10; i++) {
            queue.add("small-" + i, "small", LatencyClass.BATCH, 1_000, 200);
        }

        List<String> first = drain(20);

        assertThat(first.stream().filter(s -> s.startsWith("small"))).hasSize(10);
        assertThat(first.subList(0, 4)).containsExactly("big-0", "small-0", "big-1", "small-1");
        assertThat(queue.size()).isEqualTo(990);
    }

    @Test
    void shouldShareByTokensNotByRequests() {
        for (int i = 0; i < 30; i++) {
            queue.add("long-" + i, "long", LatencyClass.BATCH, 9_000, 1_000);
            queue.add("short-" + i, "short", LatencyClass.BATCH, 900, 100);
        }

        List<String> first = drain(22);

        assertThat(first.stream().filter(s -> s.startsWith("short")).count()).isEqualTo(20);
        assertThat(queue.counter("long", LatencyClass.BATCH)).isEqualTo(20_000.0);
        assertThat(queue.counter("short", LatencyClass.BATCH)).isEqualTo(20_000.0);
    }

    @Test
    void shouldGiveNoCreditForIdleTime() {
        for (int i = 0; i < 10; i++) {
            queue.add("a-" + i, "a", LatencyClass.BATCH, 100, 0);
        }
        drain(10);
        queue.add("a-late", "a", LatencyClass.BATCH, 100, 0);
        for (int i = 0; i < 3; i++) {
            queue.add("b-" + i, "b", LatencyClass.BATCH, 100, 0);
        }

        assertThat(queue.counter("a", LatencyClass.BATCH)).isEqualTo(1_000.0);
        assertThat(queue.counter("b", LatencyClass.BATCH)).isEqualTo(1_000.0);
        assertThat(drain(4)).containsExactly("a-late", "b-0", "b-1", "b-2");
    }

    @Test
    void shouldCorrectTheChargeByActualUsage() {
        queue.add("a-1", "a", LatencyClass.BATCH, 100, 4_000);
        queue.add("b-1", "b", LatencyClass.BATCH, 100, 4_000);
        FairQueue.Served<String> a = queue.serveNext(item -> true).orElseThrow();
        queue.serveNext(item -> true).orElseThrow();
        assertThat(a.charged()).isEqualTo(4_100.0);

        queue.settle(a, 100, 50);
        queue.add("a-2", "a", LatencyClass.BATCH, 100, 10);
        queue.add("b-2", "b", LatencyClass.BATCH, 100, 10);

        assertThat(queue.counter("a", LatencyClass.BATCH)).isEqualTo(150.0);
        assertThat(drain(1)).containsExactly("a-2");
    }

    @Test
    void shouldSettleAnIdleTenantWhileOthersWait() {
        queue.add("a-1", "a", LatencyClass.BATCH, 100, 100);
        FairQueue.Served<String> a = queue.serveNext(item -> true).orElseThrow();
        queue.add("b-1", "b", LatencyClass.BATCH, 100, 100);
        queue.add("b-2", "b", LatencyClass.BATCH, 100, 100);

        queue.settle(a, 100, 0);
        queue.add("a-2", "a", LatencyClass.BATCH, 100, 100);

        assertThat(queue.counter("a", LatencyClass.BATCH)).isEqualTo(100.0);
        assertThat(drain(3)).containsExactly("b-1", "a-2", "b-2");
    }

    @Test
    void shouldSkipATenantWhoseHeadCannotBeDispatched() {
        queue.add("pinned", "a", LatencyClass.BATCH, 10, 10);
        queue.add("free", "b", LatencyClass.BATCH, 100, 100);

        Optional<FairQueue.Served<String>> served = queue.serveNext(item -> !item.equals("pinned"));

        assertThat(served.orElseThrow().item()).isEqualTo("free");
        assertThat(queue.peek()).contains("pinned");
        assertThat(queue.serveNext(item -> false)).isEmpty();
    }

    @Test
    void shouldRemoveAQueuedRequest() {
        queue.add("x", "a", LatencyClass.INTERACTIVE, 10, 10);
        assertThat(queue.remove("x", "a", LatencyClass.INTERACTIVE)).isTrue();
        assertThat(queue.remove("x", "a", LatencyClass.INTERACTIVE)).isFalse();
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void shouldForgetIdleTenantsPastTheBoundSoItsStateDoesNotGrowWithTenantNames() {
        for (int i = 0; i < 5 * FairQueue.SWEEP_TENANTS_AT; i++) {
            queue.add("r" + i, "tenant-" + i, LatencyClass.BATCH, 10, 10);
            assertThat(queue.serveNext(item -> true)).isPresent();
        }
        assertThat(queue.tenantsKept()).isLessThanOrEqualTo(FairQueue.SWEEP_TENANTS_AT + 1);

        queue.add("busy-1", "busy", LatencyClass.BATCH, 10, 10);
        queue.add("busy-2", "busy", LatencyClass.BATCH, 10, 10);
        for (int i = 0; i < 2 * FairQueue.SWEEP_TENANTS_AT; i++) {
            queue.add("x" + i, "other-" + i, LatencyClass.BATCH, 10, 10);
        }
        assertThat(queue.size()).isEqualTo(2 + 2 * FairQueue.SWEEP_TENANTS_AT);
        List<String> served = new ArrayList<>();
        for (var next = queue.serveNext(item -> true); next.isPresent(); next = queue.serveNext(item -> true)) {
            served.add(next.get().item());
        }
        assertThat(served).as("a tenant with queued requests is never forgotten").contains("busy-1", "busy-2")
                .hasSize(2 + 2 * FairQueue.SWEEP_TENANTS_AT);
    }
}

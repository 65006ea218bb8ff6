package io.kvroute.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuSlotsTest {

    /** An engine that only counts: how many wait, and which ids it was told to cancel. */
    private static final class CountingEngine implements InferenceEngine {
        int waiting;
        String unreachable;
        final List<String> cancelled = new ArrayList<>();
        boolean closed;

        CountingEngine(int waiting) {
            this.waiting = waiting;
        }

        @Override
        public void submit(EngineRequest request, EngineListener listener) {
            waiting++;
        }

        @Override
        public void cancel(String requestId) {
            cancelled.add(requestId);
        }

        @Override
        public EngineStats snapshot() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int waitingRequests() {
            return waiting;
        }

        @Override
        public String unreachable() {
            return unreachable;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void shouldRunARecordOnTheSlotItNamesElseOnTheLeastBusy() {
        CountingEngine g0 = new CountingEngine(3);
        CountingEngine g1 = new CountingEngine(1);
        CountingEngine g2 = new CountingEngine(2);
        GpuSlots slots = new GpuSlots(List.of(new GpuSlots.Slot("n-g0", g0), new GpuSlots.Slot("n-g1", g1),
                new GpuSlots.Slot("n-g2", g2)));

        assertThat(slots.slotFor("n-g2").engine()).isSameAs(g2);
        assertThat(slots.slotFor("n-g0").workerId()).isEqualTo("n-g0");
        assertThat(slots.slotFor("other-g7").engine()).as("not here: the one with fewest waiting").isSameAs(g1);
        assertThat(slots.slotFor(null).engine()).isSameAs(g1);
        assertThat(slots.mostWaiting()).as("the per-slot bound is against the busiest").isEqualTo(3);

        g1.unreachable = "connection refused";
        assertThat(slots.slotFor("other-g7").engine()).as("a dead server looks idle: skipped").isSameAs(g2);
        assertThat(slots.unreachable()).as("ready while another slot serves").isNull();
        g0.unreachable = "down";
        g2.unreachable = "down";
        assertThat(slots.slotFor("other-g7").engine()).as("none reachable: the first").isSameAs(g0);
        assertThat(slots.unreachable()).contains("n-g0: down", "n-g1: connection refused", "n-g2: down");

        slots.cancel("r-1");
        assertThat(List.of(g0.cancelled, g1.cancelled, g2.cancelled)).allSatisfy(c -> assertThat(c).containsExactly("r-1"));
        slots.close();
        assertThat(g0.closed && g1.closed && g2.closed).isTrue();
    }

    @Test
    void shouldNameSlotsAfterTheProcessAndRefuseTwoOfOneName() {
        assertThat(GpuSlots.slotIds("us-east-0", 1)).containsExactly("us-east-0");
        assertThat(GpuSlots.isSlotOf("us-east-0-g3", "us-east-0")).isTrue();
        assertThat(GpuSlots.isSlotOf("us-east-0", "us-east-0")).isTrue();
        assertThat(GpuSlots.isSlotOf("us-east-0-gx", "us-east-0")).isFalse();
        assertThat(GpuSlots.isSlotOf("us-east-01", "us-east-0")).isFalse();
        assertThat(GpuSlots.slotIds("us-east-0", 2)).containsExactly("us-east-0-g0", "us-east-0-g1");
        assertThatThrownBy(() -> new GpuSlots(List.of(new GpuSlots.Slot("a", new CountingEngine(0)),
                new GpuSlots.Slot("a", new CountingEngine(0))))).hasMessageContaining("two GPU slots named a");
        assertThatThrownBy(() -> new GpuSlots(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}

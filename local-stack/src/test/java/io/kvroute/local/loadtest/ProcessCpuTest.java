package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {
    // a real line's shape: pid (comm) state ppid ... utime(14) stime(15) cutime cstime ...
    private static final String STAT = "4242 (java) S 1 4242 4242 0 -1 4194560 94071 0 12 0 1234 567 0 0 20 0 42 0 1234567 "
            + "3925868544 120000 18446744073709551615 1 1 0 0 0 0 0 2 16800975 0 0 0 17 1 0 0 0 0 0";

    @Test
    void shouldAddUserAndSystemTicks() {
        assertThat(ProcessCpu.parseTicks(STAT)).isEqualTo(1234 + 567);
    }

    @Test
    void shouldCountFieldsFromTheLastParenthesisWhenTheCommandNameHoldsSpacesAndParentheses() {
        String odd = STAT.replace("(java)", "(a (b) c)");
        assertThat(ProcessCpu.parseTicks(odd)).isEqualTo(1801);
    }

    @Test
    void shouldRefuseALineThatIsNotAStatLine() {
        assertThatThrownBy(() -> ProcessCpu.parseTicks("hello")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcessCpu.parseTicks("1 (x) S 1 2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fields");
    }

    @Test
    void shouldReadThisProcessesOwnCpuAndNothingForAMissingProcess() {
        assertThat(ProcessCpu.seconds(ProcessHandle.current().pid())).isGreaterThan(0);
        assertThat(ProcessCpu.seconds(Long.MAX_VALUE)).isEqualTo(-1);
    }
}

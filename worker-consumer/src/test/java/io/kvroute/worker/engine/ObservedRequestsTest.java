package io.kvroute.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ObservedRequestsTest {

    @Test
    void shouldOweEachSentPromptUntilItsFirstTokenAndTellWhatWasAheadOfIt() {
        ObservedRequests observed = new ObservedRequests();
        observed.sent("a#1", 1_000, 0);
        observed.sent("b#1", 300, 10);
        assertThat(observed.load().owedPrefillTokens()).isEqualTo(1_300);
        assertThat(observed.load().owedPrefillRequests()).isEqualTo(2);

        observed.firstToken("a#1", 120);
        observed.tokens("a#1", 1);
        assertThat(observed.load().owedPrefillTokens()).isEqualTo(300);
        assertThat(observed.load().decodingRequests()).isEqualTo(1);
        assertThat(observed.load().decodingContextTokens()).isEqualTo(1_001);
        assertThat(observed.load().recentTtftMs()).isEqualTo(120.0);

        observed.firstToken("b#1", 150);
        observed.tokens("a#1", 9);
        observed.tokens("b#1", 1);
        RunTiming a = observed.finished("a#1", 10, 210);
        RunTiming b = observed.finished("b#1", 1, 160);

        // b's prompt was prefilled while a decoded
        assertThat(a).isEqualTo(new RunTiming(120, 90, 0, 300));
        assertThat(b).isEqualTo(new RunTiming(140, 10, 1_000, 0));
        assertThat(observed.load().decodeMsPerToken()).isEqualTo(10.0);
        assertThat(observed.load()).isEqualTo(new ObservedLoad(0, 0, 0, 0, observed.load().recentTtftMs(), 10.0));
    }

    @Test
    void shouldForgetCancelledAndFailedRunsWithoutLearningFromThem() {
        ObservedRequests observed = new ObservedRequests();
        observed.sent("r#1", 500, 0);
        observed.sent("r#2", 500, 0);
        observed.sent("other#1", 200, 0);
        observed.firstToken("r#2", 50);
        observed.tokens("r#2", 3);

        observed.cancelled("r");
        observed.dropped("other#1");

        assertThat(observed.load()).isEqualTo(new ObservedLoad(0, 0, 0, 0, 50.0, 0.0));
        assertThat(observed.finished("r#1", 10, 100)).isEqualTo(RunTiming.UNKNOWN);
    }

    @Test
    void shouldAverageRecentTtftsWithTheNewestWeightedMost() {
        ObservedRequests observed = new ObservedRequests();
        for (int i = 0; i < 200; i++) {
            String key = "r" + i + "#1";
            observed.sent(key, 10, i * 1_000L);
            observed.firstToken(key, i * 1_000L + (i < 100 ? 100 : 400));
        }
        assertThat(observed.load().recentTtftMs()).isCloseTo(400.0, org.assertj.core.data.Offset.offset(5.0));
    }
}

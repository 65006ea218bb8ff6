package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class InFlightEntriesTest {
    private final InferenceRequest request = InferenceRequest.newBuilder()
            .setRequestId("r-1").setCustomId("c-1").setTenant("t").setModel("m")
            .setMessages(List.of(ChatMessage.newBuilder().setRole("user").setContent("hello there").build()))
            .setMaxTokens(64).setAllowedRegions(List.of("us-east")).setPrefixBlockHashes(List.of(7L, 8L))
            .setPrefixBlockTokens(16).setPromptTokenEstimate(3).setDeadlineMs(9_000L).setSubmittedAtMs(1_000L).build();
    private final DispatchedRequest dispatched = DispatchedRequest.newBuilder()
            .setRequest(request).setAttempt(2).setRegion("us-east").setPartition(3).setWorkerId("w-3").setPolicy("kvroute")
            .setMatchedPrefixBlocks(1).setDecidedAtMs(2_000L).build();
    private final RequestSource source = new RequestSource("kvroute.requests", 1, 42);

    @Test
    void shouldKeepEverythingButThePromptAndSayWhereTheRecordIs() {
        DispatchedRequest entry = InFlightEntries.slim(dispatched, source);

        InferenceRequest expected = InferenceRequest.newBuilder(request).setMessages(null).build();
        assertThat(entry.getRequest()).isEqualTo(expected);
        assertThat(entry).isEqualTo(DispatchedRequest.newBuilder(dispatched).setRequest(expected)
                .setSourceTopic("kvroute.requests").setSourcePartition(1).setSourceOffset(42).build());
        assertThat(InFlightEntries.sourceOf(entry)).isEqualTo(source);
        assertThat(dispatched.getRequest().getMessages()).as("the dispatch record is left whole").hasSize(1);
    }

    @Test
    void shouldMakeTheRequestWholeAgainFromItsRecord() {
        DispatchedRequest entry = InFlightEntries.slim(dispatched, source);

        InferenceRequest whole = InFlightEntries.whole(entry, (at, id) -> {
            assertThat(at).isEqualTo(source);
            assertThat(id).isEqualTo("r-1");
            return request;
        });

        assertThat(whole).isEqualTo(request);
        assertThat(InFlightEntries.whole(dispatched, RequestReader.NONE)).as("an entry kept whole needs no read").isSameAs(request);
    }
}

package io.kvroute.ingress.client;

import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.Priority;
import io.kvroute.schemas.v1.SamplingParams;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One request as a pipeline states it: a completion prompt or chat messages, the model and the
 * limits. {@link KvrouteClient} turns it into an {@code InferenceRequest}, adding the id (a random
 * UUID when none is given), the tenant (the client's default when none is given), the prefix
 * hashes, the token estimate and the submission time. Built with {@link #builder()}, which checks
 * the request is complete.
 */
public final class SubmitRequest {
    private final String requestId;
    private final String customId;
    private final String tenant;
    private final String model;
    private final String prompt;
    private final List<ChatMessage> messages;
    private final int maxTokens;
    private final SamplingParams sampling;
    private final Priority priority;
    private final Instant deadline;
    private final List<String> allowedRegions;

    private SubmitRequest(Builder b) {
        this.requestId = b.requestId;
        this.customId = b.customId;
        this.tenant = b.tenant;
        this.model = b.model;
        this.prompt = b.prompt;
        this.messages = b.messages == null ? null : List.copyOf(b.messages);
        this.maxTokens = b.maxTokens;
        this.sampling = b.sampling;
        this.priority = b.priority;
        this.deadline = b.deadline;
        this.allowedRegions = List.copyOf(b.allowedRegions);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    public Optional<String> customId() {
        return Optional.ofNullable(customId);
    }

    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    public String model() {
        return model;
    }

    public Optional<String> prompt() {
        return Optional.ofNullable(prompt);
    }

    public Optional<List<ChatMessage>> messages() {
        return Optional.ofNullable(messages);
    }

    public boolean isChat() {
        return messages != null;
    }

    public int maxTokens() {
        return maxTokens;
    }

    public Optional<SamplingParams> sampling() {
        return Optional.ofNullable(sampling);
    }

    public Priority priority() {
        return priority;
    }

    public Optional<Instant> deadline() {
        return Optional.ofNullable(deadline);
    }

    public List<String> allowedRegions() {
        return allowedRegions;
    }

    /** Builds a {@link SubmitRequest}; {@link #build()} rejects an incomplete or contradictory one. */
    public static final class Builder {
        private String requestId;
        private String customId;
        private String tenant;
        private String model;
        private String prompt;
        private List<ChatMessage> messages;
        private int maxTokens;
        private SamplingParams sampling;
        private Priority priority = Priority.BATCH;
        private Instant deadline;
        private List<String> allowedRegions = List.of();

        private Builder() {
        }

        public Builder requestId(String requestId) {
            this.requestId = requestId;
            return this;
        }

        public Builder customId(String customId) {
            this.customId = customId;
            return this;
        }

        public Builder tenant(String tenant) {
            this.tenant = tenant;
            return this;
        }

        public Builder model(String model) {
            this.model = model;
            return this;
        }

        public Builder prompt(String prompt) {
            this.prompt = prompt;
            return this;
        }

        public Builder messages(List<ChatMessage> messages) {
            this.messages = messages;
            return this;
        }

        public Builder message(String role, String content) {
            if (messages == null) {
                messages = new ArrayList<>();
            } else if (!(messages instanceof ArrayList)) {
                messages = new ArrayList<>(messages);
            }
            messages.add(new ChatMessage(role, content));
            return this;
        }

        public Builder maxTokens(int maxTokens) {
            this.maxTokens = maxTokens;
            return this;
        }

        public Builder sampling(SamplingParams sampling) {
            this.sampling = sampling;
            return this;
        }

        public Builder priority(Priority priority) {
            this.priority = Objects.requireNonNull(priority, "priority");
            return this;
        }

        public Builder deadline(Instant deadline) {
            this.deadline = deadline;
            return this;
        }

        public Builder allowedRegions(List<String> allowedRegions) {
            this.allowedRegions = Objects.requireNonNull(allowedRegions, "allowedRegions");
            return this;
        }

        public SubmitRequest build() {
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("model is required");
            }
            if ((prompt == null) == (messages == null)) {
                throw new IllegalArgumentException("exactly one of prompt and messages must be given");
            }
            if (messages != null && messages.isEmpty()) {
                throw new IllegalArgumentException("messages must not be empty");
            }
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens must be at least 1, was " + maxTokens);
            }
            if (requestId != null && requestId.isBlank()) {
                throw new IllegalArgumentException("requestId must not be blank");
            }
            return new SubmitRequest(this);
        }
    }
}

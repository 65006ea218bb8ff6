package io.kvroute.local.stack;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * Who may authenticate to a {@link LocalKafkaBroker#secured} cluster and how: the administrator with SASL/PLAIN (also
 * the nodes among themselves), SCRAM-SHA-512 users created when the storage is formatted, and, if asked, OAUTHBEARER
 * tokens of one issuer. It gives the nodes' SASL and authorizer settings, the storage tool's arguments that create the
 * users, and the administrator's upsert of them for a directory formatted before. Passwords are never printed.
 */
final class BrokerSecurity {
    private static final int SCRAM_ITERATIONS = 8192;
    private static final long ADMIN_TIMEOUT_S = 30;

    private final LocalKafkaBroker.BrokerAdmin admin;
    private final BrokerTls tls;
    /** User to password; written at format. */
    private final Map<String, String> scramUsers = new LinkedHashMap<>();
    /** Whether {@link #scramUsers} are in the cluster's metadata: formatted with it, or upserted after a start. */
    private boolean scramUsersStored;
    /** The issuer's JWKS URL, the issuer and audience tokens must name; null without OAUTHBEARER. */
    private String oauthJwksUrl;
    private String oauthIssuer;
    private String oauthAudience;

    BrokerSecurity(LocalKafkaBroker.BrokerAdmin admin, BrokerTls tls) {
        this.admin = admin;
        this.tls = tls;
    }

    BrokerTls tls() {
        return tls;
    }

    void addScramUsers(Map<String, String> passwordsByUser) {
        passwordsByUser.forEach((user, password) -> {
            if (!user.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("a SCRAM user is letters, digits, '_', '.' or '-', was '" + user + "'");
            }
            // the storage tool splits its --add-scram argument at commas and strips surrounding quotes; one argument a line
            if (password.isEmpty() || !password.matches("[\\x21-\\x7e&&[^,\"]]+")) {
                throw new IllegalArgumentException("the SCRAM password of " + user
                        + " must be printable ASCII without spaces, commas or quotes (the storage tool's syntax)");
            }
        });
        scramUsers.putAll(passwordsByUser);
        scramUsersStored = false;
    }

    void oauthBearer(String jwksUrl, String issuer, String audience) {
        if (!jwksUrl.startsWith("http://") && !jwksUrl.startsWith("https://") || jwksUrl.contains(",")) {
            throw new IllegalArgumentException("the JWKS endpoint must be one http(s) URL, was '" + jwksUrl + "'");
        }
        if (issuer.isBlank() || audience.isBlank()) {
            throw new IllegalArgumentException("OAUTHBEARER needs the issuer and the audience tokens must name");
        }
        this.oauthJwksUrl = jwksUrl;
        this.oauthIssuer = issuer;
        this.oauthAudience = audience;
    }

    /** Options every node's JVM needs. */
    List<String> jvmArgs() {
        // Kafka 4 fetches OAuth URLs only when the JVM allows them
        return oauthJwksUrl == null ? List.of() : List.of("-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=" + oauthJwksUrl);
    }

    /**
     * SASL on both listeners: clients authenticate with SCRAM-SHA-512 (credentials kept in the cluster's metadata),
     * OAUTHBEARER when configured or, the administrator only, PLAIN; nodes talk to each other as the administrator.
     * KRaft's own authorizer, deny by default.
     */
    void brokerSettings(Properties p) {
        p.setProperty("sasl.enabled.mechanisms", oauthJwksUrl != null ? "PLAIN,SCRAM-SHA-512,OAUTHBEARER" : "PLAIN,SCRAM-SHA-512");
        p.setProperty("sasl.mechanism.inter.broker.protocol", "PLAIN");
        p.setProperty("sasl.mechanism.controller.protocol", "PLAIN");
        p.setProperty("listener.name.sasl_ssl.plain.sasl.jaas.config", admin.jaas(true));
        p.setProperty("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        if (oauthJwksUrl != null) {
            p.setProperty("listener.name.sasl_ssl.oauthbearer.sasl.jaas.config",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
            p.setProperty("listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler");
            p.setProperty("sasl.oauthbearer.jwks.endpoint.url", oauthJwksUrl);
            p.setProperty("sasl.oauthbearer.expected.issuer", oauthIssuer);
            p.setProperty("sasl.oauthbearer.expected.audience", oauthAudience);
        }
        p.setProperty("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.setProperty("listener.name.controller.plain.sasl.jaas.config", admin.jaas(true));
        p.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.setProperty("super.users", "User:" + admin.user());
        tls.brokerSettings().forEach(p::setProperty);
        p.setProperty("allow.everyone.if.no.acl.found", "false");
    }

    /**
     * Writes the storage tool's {@code --add-scram} arguments, one a line, into {@code file} (readable by this user only)
     * and gives the argument that makes the tool read them ({@code @file}); empty without SCRAM users.
     */
    Optional<String> writeScramArguments(Path file) throws IOException {
        if (scramUsers.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder lines = new StringBuilder();
        scramUsers.forEach((user, password) -> lines.append("--add-scram\n").append(ScramMechanism.SCRAM_SHA_512.mechanismName())
                .append("=[name=").append(user).append(",iterations=").append(SCRAM_ITERATIONS).append(",password=")
                .append(password).append("]\n"));
        BrokerTls.writeSecret(file, lines.toString());
        return Optional.of("@" + file);
    }

    /** The storage was formatted with {@link #writeScramArguments}' users. */
    void scramUsersFormatted() {
        scramUsersStored = true;
    }

    /** Creates or updates the SCRAM users as the administrator, unless the storage was formatted with them. */
    void upsertScramUsersIfNotStored(String bootstrapServers) {
        if (scramUsersStored || scramUsers.isEmpty()) {
            return;
        }
        List<UserScramCredentialAlteration> users = new ArrayList<>();
        scramUsers.forEach((user, password) -> users.add(new UserScramCredentialUpsertion(user,
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password)));
        try (Admin client = Admin.create(adminClientSettings(bootstrapServers))) {
            client.alterUserScramCredentials(users).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            scramUsersStored = true;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create the SCRAM users " + scramUsers.keySet() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating the SCRAM users", e);
        }
    }

    /** What a client needs to trust the cluster (security protocol and trust store). */
    Map<String, Object> clientTlsSettings() {
        Map<String, Object> settings = new HashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.putAll(tls.clientTrust());
        return settings;
    }

    /** The administrator's client settings. */
    Map<String, Object> adminClientSettings(String bootstrapServers) {
        Map<String, Object> settings = new HashMap<>(clientTlsSettings());
        settings.put("bootstrap.servers", bootstrapServers);
        settings.put("sasl.mechanism", "PLAIN");
        settings.put("sasl.jaas.config", admin.jaas(false));
        return settings;
    }
}

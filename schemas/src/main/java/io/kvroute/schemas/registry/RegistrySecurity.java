package io.kvroute.schemas.registry;

import static io.kvroute.schemas.serde.SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE;
import static io.kvroute.schemas.serde.SerdeConfig.BASIC_AUTH_USER_INFO;
import static io.kvroute.schemas.serde.SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE;
import static io.kvroute.schemas.serde.SerdeConfig.BEARER_AUTH_TOKEN;
import static io.kvroute.schemas.serde.SerdeConfig.CLIENT_NAMESPACE;

import io.kvroute.schemas.serde.SerdeConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.UnrecoverableKeyException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * How the registry client proves who it is and whom it trusts: an {@code Authorization} header
 * (HTTP Basic or a static bearer token) sent with every request, and an {@link SSLContext} built
 * from a truststore (and a keystore for mutual TLS) instead of the JVM's default trust. Built from
 * the serde configuration ({@link SerdeConfig} keys) and validated when built, so a wrong setting
 * stops a process at start-up with a {@link SchemaRegistryConfigException} naming the key. Secrets
 * are held only as the header value and the key material; no message or {@link #toString()} shows them.
 */
public final class RegistrySecurity {
    /** No credentials, the JVM's default trust. */
    public static final RegistrySecurity NONE = new RegistrySecurity(null, "none", null, "JVM default trust");

    private final String authorization;
    private final String authDescription;
    private final SSLContext sslContext;
    private final String tlsDescription;

    private RegistrySecurity(String authorization, String authDescription, SSLContext sslContext, String tlsDescription) {
        this.authorization = authorization;
        this.authDescription = authDescription;
        this.sslContext = sslContext;
        this.tlsDescription = tlsDescription;
    }

    /** Reads and checks the registry client's credential and TLS settings in {@code config}. */
    public static RegistrySecurity from(Map<String, ?> config) {
        String url = value(config, SerdeConfig.SCHEMA_REGISTRY_URL);
        if (url != null && hasUserInfo(url)) {
            // the URL is shown in messages and logs; credentials belong in basic.auth.user.info
            throw new SchemaRegistryConfigException(SerdeConfig.SCHEMA_REGISTRY_URL, "***", "must not carry user:password; set "
                    + BASIC_AUTH_CREDENTIALS_SOURCE + "=" + SerdeConfig.USER_INFO + " and " + BASIC_AUTH_USER_INFO);
        }
        Credential basic = basic(config);
        Credential bearer = bearer(config);
        if (basic != null && bearer != null) {
            throw new SchemaRegistryConfigException(bearer.key, "***", "cannot be set together with " + basic.key
                    + ": give the registry either basic auth or a bearer token");
        }
        Credential credential = basic != null ? basic : bearer;
        List<String> tls = new ArrayList<>();
        TrustManager[] trust = trustManagers(config, tls);
        KeyManager[] keys = keyManagers(config, tls);
        SSLContext context = null;
        if (trust != null || keys != null) {
            try {
                context = SSLContext.getInstance("TLS");
                context.init(keys, trust, null);
            } catch (GeneralSecurityException e) {
                throw new SchemaRegistryConfigException(tls.get(0), config.get(tls.get(0)).toString(),
                        "no TLS context can be made from it: " + e.getMessage());
            }
        }
        if (credential == null && context == null) {
            return NONE;
        }
        return new RegistrySecurity(credential == null ? null : credential.header,
                credential == null ? "none" : credential.description,
                context, context == null ? "JVM default trust" : String.join(", ", tls));
    }

    /** The {@code Authorization} header value to send, if any. */
    public Optional<String> authorization() {
        return Optional.ofNullable(authorization);
    }

    /** The TLS context to connect with, or empty for the JVM's default. */
    public Optional<SSLContext> sslContext() {
        return Optional.ofNullable(sslContext);
    }

    /** Which kinds of credential and trust are configured, by key; never a secret. */
    @Override
    public String toString() {
        return "RegistrySecurity[auth=" + authDescription + ", tls=" + tlsDescription + "]";
    }

    private record Credential(String key, String header, String description) {
    }

    private static Credential basic(Map<String, ?> config) {
        Setting userInfo = secretFromSource(config, BASIC_AUTH_CREDENTIALS_SOURCE, SerdeConfig.USER_INFO, BASIC_AUTH_USER_INFO,
                "credentials from " + BASIC_AUTH_USER_INFO);
        if (userInfo == null) {
            return null;
        }
        int colon = userInfo.value.indexOf(':');
        if (colon <= 0) {
            throw new SchemaRegistryConfigException(userInfo.key, "***", "must be user:password (a user name, then ':')");
        }
        if (hasControlCharacters(userInfo.value)) {
            throw new SchemaRegistryConfigException(userInfo.key, "***", "must not contain control characters (line breaks)");
        }
        String encoded = Base64.getEncoder().encodeToString(userInfo.value.getBytes(StandardCharsets.UTF_8));
        return new Credential(userInfo.key, "Basic " + encoded, "basic (" + userInfo.key + ")");
    }

    private static Credential bearer(Map<String, ?> config) {
        Setting token = secretFromSource(config, BEARER_AUTH_CREDENTIALS_SOURCE, SerdeConfig.STATIC_TOKEN, BEARER_AUTH_TOKEN,
                "the token in " + BEARER_AUTH_TOKEN);
        if (token == null) {
            return null;
        }
        if (hasControlCharacters(token.value) || token.value.chars().anyMatch(Character::isWhitespace)) {
            throw new SchemaRegistryConfigException(token.key, "***", "must not contain spaces or control characters");
        }
        return new Credential(token.key, "Bearer " + token.value, "bearer (" + token.key + ")");
    }

    /** Whether the URL's authority (between {@code //} and the path) holds {@code user[:password]@}. */
    private static boolean hasUserInfo(String url) {
        int start = url.indexOf("//");
        if (start < 0) {
            return false;
        }
        int end = start + 2;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        return url.substring(start + 2, end).contains("@");
    }

    /**
     * The secret of a Confluent-style credential pair: {@code sourceKey} must name the one source kvroute reads
     * ({@code source}, described as {@code sourceMeans}) and {@code secretKey} hold the secret; null when neither is set.
     */
    private static Setting secretFromSource(Map<String, ?> config, String sourceKey, String source, String secretKey,
                                            String sourceMeans) {
        Setting given = setting(config, sourceKey, false);
        Setting secret = setting(config, secretKey, true);
        if (given == null && secret == null) {
            return null;
        }
        if (given == null) {
            throw new SchemaRegistryConfigException(sourceKey, "", "must be " + source + " when " + secret.key + " is set");
        }
        if (!source.equals(given.value)) {
            throw new SchemaRegistryConfigException(given.key, given.value, "must be " + source + " (" + sourceMeans
                    + "), the only source kvroute reads");
        }
        if (secret == null) {
            throw new SchemaRegistryConfigException(secretKey, "", "is required with " + given.key + "=" + source);
        }
        return secret;
    }

    private static boolean hasControlCharacters(String s) {
        return s.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
    }

    /** A setting given as {@code key} or, as Confluent's client also reads it, {@code schema.registry.<key>}. */
    private record Setting(String key, String value) {
    }

    private static Setting setting(Map<String, ?> config, String key, boolean secret) {
        String plain = value(config, key);
        String prefixed = value(config, CLIENT_NAMESPACE + key);
        if (plain != null && prefixed != null && !plain.equals(prefixed)) {
            throw new SchemaRegistryConfigException(CLIENT_NAMESPACE + key, secret ? "***" : prefixed,
                    "differs from " + key + "; set one of them");
        }
        if (prefixed != null) {
            return new Setting(CLIENT_NAMESPACE + key, prefixed);
        }
        return plain == null ? null : new Setting(key, plain);
    }

    private static String value(Map<String, ?> config, String key) {
        Object v = config.get(key);
        if (v == null) {
            return null;
        }
        String s = v.toString().trim();
        return s.isEmpty() ? null : s;
    }

    private static TrustManager[] trustManagers(Map<String, ?> config, List<String> described) {
        KeyStore store = store(config, SerdeConfig.SSL_TRUSTSTORE_LOCATION, SerdeConfig.SSL_TRUSTSTORE_PASSWORD, SerdeConfig.SSL_TRUSTSTORE_TYPE);
        if (store == null) {
            return null;
        }
        described.add(SerdeConfig.SSL_TRUSTSTORE_LOCATION);
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        } catch (GeneralSecurityException e) {
            throw new SchemaRegistryConfigException(SerdeConfig.SSL_TRUSTSTORE_LOCATION, value(config, SerdeConfig.SSL_TRUSTSTORE_LOCATION),
                    "cannot be used as a truststore: " + e.getMessage());
        }
    }

    private static KeyManager[] keyManagers(Map<String, ?> config, List<String> described) {
        KeyStore store = store(config, SerdeConfig.SSL_KEYSTORE_LOCATION, SerdeConfig.SSL_KEYSTORE_PASSWORD, SerdeConfig.SSL_KEYSTORE_TYPE);
        if (store == null) {
            if (value(config, SerdeConfig.SSL_KEY_PASSWORD) != null) {
                throw new SchemaRegistryConfigException(SerdeConfig.SSL_KEY_PASSWORD, "***", "is set but " + SerdeConfig.SSL_KEYSTORE_LOCATION + " is not");
            }
            return null;
        }
        described.add(SerdeConfig.SSL_KEYSTORE_LOCATION);
        String keyPassword = value(config, SerdeConfig.SSL_KEY_PASSWORD);
        if (keyPassword == null) {
            keyPassword = value(config, SerdeConfig.SSL_KEYSTORE_PASSWORD);
        }
        try {
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, keyPassword == null ? new char[0] : keyPassword.toCharArray());
            return factory.getKeyManagers();
        } catch (UnrecoverableKeyException e) {
            String key = value(config, SerdeConfig.SSL_KEY_PASSWORD) != null ? SerdeConfig.SSL_KEY_PASSWORD : SerdeConfig.SSL_KEYSTORE_PASSWORD;
            throw new SchemaRegistryConfigException(key, "***", "does not unlock the private key in " + SerdeConfig.SSL_KEYSTORE_LOCATION);
        } catch (GeneralSecurityException e) {
            throw new SchemaRegistryConfigException(SerdeConfig.SSL_KEYSTORE_LOCATION, value(config, SerdeConfig.SSL_KEYSTORE_LOCATION),
                    "cannot be used as a keystore: " + e.getMessage());
        }
    }

    /** The key store {@code locationKey} names, loaded and checked, or null when it names none. */
    private static KeyStore store(Map<String, ?> config, String locationKey, String passwordKey, String typeKey) {
        String location = value(config, locationKey);
        String password = value(config, passwordKey);
        if (location == null) {
            if (password != null) {
                throw new SchemaRegistryConfigException(passwordKey, "***", "is set but " + locationKey + " is not");
            }
            return null;
        }
        String type = value(config, typeKey);
        if (type == null) {
            type = SerdeConfig.DEFAULT_STORE_TYPE;
        }
        KeyStore store;
        try {
            store = KeyStore.getInstance(type);
        } catch (KeyStoreException e) {
            throw new SchemaRegistryConfigException(typeKey, type, "is not a key store type this JVM knows (JKS and PKCS12 are)");
        }
        Path path;
        try {
            path = Path.of(location);
        } catch (InvalidPathException e) {
            throw new SchemaRegistryConfigException(locationKey, location, "is not a file path");
        }
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new SchemaRegistryConfigException(locationKey, location, "is not a readable file");
        }
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, password == null ? null : password.toCharArray());
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException) {
                throw new SchemaRegistryConfigException(passwordKey, password == null ? "" : "***",
                        (password == null ? "is required to open " : "does not open ") + locationKey + " (" + location + ")");
            }
            throw new SchemaRegistryConfigException(locationKey, location, "cannot be read as a " + type + " key store ("
                    + e.getClass().getSimpleName() + "); check " + typeKey);
        } catch (GeneralSecurityException e) {
            throw new SchemaRegistryConfigException(locationKey, location, "cannot be read as a " + type + " key store ("
                    + e.getClass().getSimpleName() + ")");
        }
        return store;
    }
}

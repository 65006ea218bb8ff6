package io.kvroute.ingress.prompt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The key that a request's prefix block hashes are salted with, so that only requests under the
 * same salt share prefix hashes (and so KV-cache placement and, through {@link #cacheSalt()}, the
 * server's prefix cache). By default each tenant has its own, derived from its name
 * ({@link #ofTenant}); tenants that mean to share a prefix configure the same secret
 * ({@link #ofSecret}), and a secret unknown to a reader of the hashes makes them unconfirmable.
 *
 * <p>Only a SHA-256 digest of the secret is kept, never the secret; {@link #toString()} shows
 * neither.
 */
public final class PrefixSalt {
    /** Fewest characters a configured secret may have: a short one could be guessed and checked against published hashes. */
    public static final int MIN_SECRET_CHARS = 16;
    /** Hex characters of {@link #cacheSalt()}: 128 bits. */
    public static final int CACHE_SALT_HEX_CHARS = 32;

    private static final String TENANT_TAG = "kvroute/prefix-salt/v1/tenant";
    private static final String SECRET_TAG = "kvroute/prefix-salt/v1/secret";
    private static final String CACHE_SALT_TAG = "kvroute/cache-salt/v1";

    private final byte[] key;
    private final boolean secret;

    private PrefixSalt(byte[] key, boolean secret) {
        this.key = key;
        this.secret = secret;
    }

    /** The default salt of a tenant: public (anyone knowing the name can derive it), but no two tenants share it. */
    public static PrefixSalt ofTenant(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        return new PrefixSalt(digest(TENANT_TAG, tenant.getBytes(StandardCharsets.UTF_8)), false);
    }

    /** A configured secret: every tenant whose client is given the same secret shares prefixes with the others. */
    public static PrefixSalt ofSecret(String secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.length() < MIN_SECRET_CHARS) {
            // the message gives the length only, never the value
            throw new IllegalArgumentException("a prefix salt needs at least " + MIN_SECRET_CHARS + " characters, was "
                    + secret.length());
        }
        return new PrefixSalt(digest(SECRET_TAG, secret.getBytes(StandardCharsets.UTF_8)), true);
    }

    /** Whether this salt came from a configured secret rather than the tenant's name. */
    public boolean isSecret() {
        return secret;
    }

    /** The key that the chain of block hashes is computed under. */
    byte[] key() {
        return key.clone();
    }

    /**
     * What goes in {@code InferenceRequest.cacheSalt} and on to the inference server (vLLM's
     * {@code cache_salt}): hex of SHA-256 over a domain tag and the key, cut to
     * {@value #CACHE_SALT_HEX_CHARS} characters. Equal for equal salts; reveals neither the salt nor the key.
     */
    public String cacheSalt() {
        return HexFormat.of().formatHex(digest(CACHE_SALT_TAG, key), 0, CACHE_SALT_HEX_CHARS / 2);
    }

    private static byte[] digest(String tag, byte[] value) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        sha256.update(tag.getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        return sha256.digest(value);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PrefixSalt that && MessageDigest.isEqual(key, that.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return secret ? "PrefixSalt[configured, ***]" : "PrefixSalt[from tenant name]";
    }
}

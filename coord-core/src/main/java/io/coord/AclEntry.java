package io.coord;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Set;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * One ACL entry: a scheme, an id in that scheme, and permissions. Validated on construction, so a
 * malformed entry is refused here instead of reaching the server as {@code InvalidACL}, or worse,
 * being accepted and locking everyone out (a plaintext digest id).
 *
 * @param perms bit set of {@link org.apache.zookeeper.ZooDefs.Perms}
 */
public record AclEntry(String scheme, String id, int perms) {
    private static final Set<String> SCHEMES = Set.of("world", "auth", "digest", "ip", "x509", "sasl");

    public AclEntry {
        if (scheme == null || !SCHEMES.contains(scheme)) {
            throw new InvalidAclException("ACL scheme " + (scheme == null ? "null" : CoordPath.quote(scheme))
                    + " is unknown; ZooKeeper knows " + SCHEMES);
        }
        if (id == null) {
            throw new InvalidAclException("ACL id for scheme " + scheme + " is null");
        }
        if (perms <= 0 || (perms & ~Perms.ALL) != 0) {
            throw new InvalidAclException("ACL perms " + perms + " for " + scheme + ":" + id
                    + " must be a non-empty subset of ZooDefs.Perms.ALL (" + Perms.ALL + ")");
        }
        switch (scheme) {
            case "world" -> {
                if (!id.equals("anyone")) {
                    throw new InvalidAclException("world ACL id must be \"anyone\", got " + CoordPath.quote(id));
                }
            }
            case "digest" -> checkDigestId(id);
            case "ip" -> {
                if (id.isEmpty() || !id.matches("[0-9a-fA-F.:]+(/[0-9]{1,3})?")) {
                    throw new InvalidAclException("ip ACL id " + CoordPath.quote(id) + " is not an address or address/bits");
                }
            }
            default -> {
                if (id.isEmpty() && !scheme.equals("auth")) {
                    throw new InvalidAclException(scheme + " ACL id is empty");
                }
            }
        }
    }

    /** Everyone, with {@code perms}. */
    public static AclEntry anyone(int perms) {
        return new AclEntry("world", "anyone", perms);
    }

    /** A digest identity given by user and password; the id is hashed here, never sent in clear. */
    public static AclEntry digest(String user, String password, int perms) {
        return new AclEntry("digest", digestId(user, password), perms);
    }

    /** A digest identity given as ZooKeeper stores it: {@code user:base64(sha1(user:password))}. */
    public static AclEntry digestHashed(String hashedId, int perms) {
        return new AclEntry("digest", hashedId, perms);
    }

    /** Whoever created the node, with the identities it authenticated with ({@code auth} scheme). */
    public static AclEntry creator(int perms) {
        return new AclEntry("auth", "", perms);
    }

    /**
     * ZooKeeper's digest id for a user and password ({@code DigestAuthenticationProvider} with its
     * default SHA1): {@code user:base64(sha1("user:password"))}.
     */
    public static String digestId(String user, String password) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA1").digest((user + ":" + password).getBytes(StandardCharsets.UTF_8));
            return user + ":" + Base64.getEncoder().encodeToString(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA1 is missing from this JVM", e);
        }
    }

    public ACL toAcl() {
        return new ACL(perms, new Id(scheme, id));
    }

    public static AclEntry fromAcl(ACL acl) {
        return new AclEntry(acl.getId().getScheme(), acl.getId().getId(), acl.getPerms());
    }

    private static void checkDigestId(String id) {
        int colon = id.indexOf(':');
        if (colon <= 0) {
            throw new InvalidAclException("digest ACL id " + CoordPath.quote(mask(id))
                    + " must be user:base64(sha1(user:password)); it has no ':' after a non-empty user name");
        }
        String hash = id.substring(colon + 1);
        // SHA1 is 20 bytes: 28 base64 characters ending in '='. Anything else is almost certainly
        // a plaintext password, which ZooKeeper would accept and then match nobody, the creator included.
        if (hash.length() != 28 || !hash.endsWith("=") || !isBase64(hash)) {
            throw new InvalidAclException("digest ACL id for user " + CoordPath.quote(id.substring(0, colon))
                    + " must be user:base64(sha1(user:password)) — it looks like a plaintext password;"
                    + " use AclEntry.digest(user, password, perms) to hash it");
        }
    }

    private static boolean isBase64(String s) {
        try {
            return Base64.getDecoder().decode(s).length == 20;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String mask(String id) {
        return id.length() <= 3 ? "***" : id.substring(0, 3) + "***";
    }

    @Override
    public String toString() {
        return scheme + ":" + id + ":" + perms;
    }
}

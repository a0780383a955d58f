package io.coord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.data.ACL;

/**
 * Which ACL every node Coord creates gets, by path prefix: the longest matching prefix wins, and
 * paths no rule covers get the default. Applied through Curator's {@code ACLProvider} to every
 * node, parents, containers and the namespace node included (Curator gives parents the provider's
 * ACL, not a per-call one, so the provider is the only place that covers the whole tree).
 *
 * <p>Prefixes are paths relative to the client's namespace, as recipes see them.
 *
 * <pre>{@code
 * AclPolicy policy = AclPolicy.builder()
 *     .defaultAcl(AclEntry.anyone(Perms.ALL))
 *     .rule("/config", AclEntry.anyone(Perms.READ), AclEntry.digest("config-admin", secret, Perms.ALL))
 *     .build();
 * }</pre>
 */
public final class AclPolicy {
    private static final AclPolicy OPEN = builder().defaultAcl(AclEntry.anyone(org.apache.zookeeper.ZooDefs.Perms.ALL)).build();

    private final List<AclEntry> defaultAcl;
    private final Map<CoordPath, List<AclEntry>> rules;
    private final List<CoordPath> prefixesLongestFirst;

    private AclPolicy(List<AclEntry> defaultAcl, Map<CoordPath, List<AclEntry>> rules) {
        this.defaultAcl = List.copyOf(defaultAcl);
        this.rules = Map.copyOf(rules);
        List<CoordPath> prefixes = new ArrayList<>(rules.keySet());
        prefixes.sort(Comparator.comparingInt((CoordPath p) -> p.value().length()).reversed());
        this.prefixesLongestFirst = List.copyOf(prefixes);
    }

    /** Everyone may do everything: ZooKeeper's {@code OPEN_ACL_UNSAFE}, the default. */
    public static AclPolicy open() {
        return OPEN;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The entries for a node at {@code path} (namespace-relative). */
    public List<AclEntry> entriesFor(CoordPath path) {
        for (CoordPath prefix : prefixesLongestFirst) {
            if (path.startsWith(prefix)) {
                return rules.get(prefix);
            }
        }
        return defaultAcl;
    }

    public List<ACL> aclFor(CoordPath path) {
        return entriesFor(path).stream().map(AclEntry::toAcl).toList();
    }

    public List<AclEntry> defaultEntries() {
        return defaultAcl;
    }

    public Map<CoordPath, List<AclEntry>> rules() {
        return rules;
    }

    /** True if some entry uses the {@code auth} scheme, which needs an authenticated identity. */
    public boolean needsAuthenticatedIdentity() {
        return defaultAcl.stream().anyMatch(e -> e.scheme().equals("auth"))
                || rules.values().stream().flatMap(List::stream).anyMatch(e -> e.scheme().equals("auth"));
    }

    @Override
    public String toString() {
        return "AclPolicy[default=" + defaultAcl + ", rules=" + rules + "]";
    }

    /** Builds a policy; each prefix may be given once. */
    public static final class Builder {
        private List<AclEntry> defaultAcl;
        private final Map<CoordPath, List<AclEntry>> rules = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder defaultAcl(AclEntry... entries) {
            if (defaultAcl != null) {
                throw new ConfigurationException("AclPolicy defaultAcl was already set to " + defaultAcl);
            }
            defaultAcl = nonEmpty("defaultAcl", entries);
            return this;
        }

        public Builder rule(String prefix, AclEntry... entries) {
            CoordPath path = CoordPath.of(prefix);
            if (rules.containsKey(path)) {
                throw new ConfigurationException("AclPolicy has two rules for prefix " + path);
            }
            rules.put(path, nonEmpty("rule " + path, entries));
            return this;
        }

        public AclPolicy build() {
            return new AclPolicy(defaultAcl == null ? List.of(AclEntry.anyone(org.apache.zookeeper.ZooDefs.Perms.ALL)) : defaultAcl, rules);
        }

        private static List<AclEntry> nonEmpty(String what, AclEntry[] entries) {
            if (entries == null || entries.length == 0) {
                throw new InvalidAclException(what + " has no ACL entries: nobody could ever read or delete those nodes");
            }
            return List.of(entries);
        }
    }
}

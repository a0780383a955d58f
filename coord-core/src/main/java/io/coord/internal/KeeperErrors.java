package io.coord.internal;

import io.coord.AuthenticationException;
import io.coord.ConflictException;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordTimeoutException;
import io.coord.InvalidAclException;
import io.coord.NoParentException;
import io.coord.NotAuthorizedException;
import io.coord.SessionExpiredException;
import io.coord.ValueTooLargeException;
import org.apache.zookeeper.KeeperException;

/**
 * Translates ZooKeeper's and Curator's exceptions into Coord's, at the edge, always with the path
 * (and, for authorization, the identities this client presented).
 */
public final class KeeperErrors {
    private KeeperErrors() {
    }

    /**
     * The Coord exception for {@code e}, raised by an operation on {@code path}.
     * {@code principals} describes who this client is ("digest:alice" or "anonymous").
     * Never called with an InterruptedException: callers rethrow those.
     */
    public static CoordException translate(Throwable e, String path, String principals) {
        if (e instanceof CoordException ce) {
            return ce;
        }
        if (e instanceof KeeperException ke) {
            String where = ke.getPath() != null ? ke.getPath() : path;
            return switch (ke.code()) {
                case NOAUTH -> new NotAuthorizedException("not authorized for " + describe(ke) + " on " + where
                        + " as " + principals + " (the node's ACL does not grant this identity the permission)", ke);
                case AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH -> new AuthenticationException(
                        "the server rejected the authentication of " + principals + " (" + ke.code() + ")", ke);
                case BADVERSION -> new ConflictException("version conflict on " + where
                        + ": the node changed since it was read", ke);
                case INVALIDACL -> new InvalidAclException("the server refused the ACL for " + where
                        + " (InvalidACL: malformed id, unknown scheme, or an 'auth' ACL without an authenticated identity)", ke);
                case NONODE -> new NoParentException(noNode(where), ke);
                case CONNECTIONLOSS -> new ConnectionLostException("connection lost during the operation on " + where
                        + "; it may or may not have been applied", ke);
                case OPERATIONTIMEOUT, REQUESTTIMEOUT -> new ConnectionLostException("operation on " + where
                        + " timed out; it may or may not have been applied", ke);
                case SESSIONEXPIRED, SESSIONMOVED -> new SessionExpiredException("session ended during the operation on " + where, ke);
                case QUOTAEXCEEDED -> new CoordException("quota exceeded under " + where, ke);
                default -> new CoordException("ZooKeeper error " + ke.code() + " on " + where, ke);
            };
        }
        if (e instanceof ValueTooLargeException v) {
            return v;
        }
        if (e instanceof java.util.concurrent.TimeoutException) {
            return new CoordTimeoutException("timed out on " + path, e);
        }
        if (e instanceof IllegalArgumentException) {
            return new io.coord.InvalidPathException("ZooKeeper refused " + path + ": " + e.getMessage(), e);
        }
        return new CoordException("operation on " + path + " failed: " + e, e);
    }

    /**
     * ZooKeeper says NoNode both for a missing node and for a create whose parent is missing, and
     * the error does not say which operation it was; so the message names both the node and its
     * parent (bad-input row 26).
     */
    private static String noNode(String where) {
        int slash = where.lastIndexOf('/');
        if (slash < 0 || where.length() <= 1) {
            return "no node " + where;
        }
        String parent = slash == 0 ? "/" : where.substring(0, slash);
        return "no node " + where + ": it does not exist, or, if this was a create, its parent " + parent
                + " does not exist (ZooKeeper creates no parents; Coord's recipes create theirs with the policy ACL)";
    }

    private static String describe(KeeperException ke) {
        return "the operation";
    }
}

package io.coord.fence;

import io.coord.CoordException;
import io.coord.FencingToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FenceGuard} in a SQL database: one row per resource holding the highest token, moved
 * only by a conditional update ({@code UPDATE … SET token = ? WHERE resource = ? AND token <= ?}),
 * so the database itself decides, atomically, whether a holder is stale.
 *
 * <p>Use {@link #admit(Connection, String, FencingToken)} inside the transaction that does the
 * protected write: the row lock taken by the update serializes writers of the same resource, and
 * a stale holder's transaction writes nothing. The table must exist:
 * <pre>{@code CREATE TABLE coord_fence (resource VARCHAR(255) PRIMARY KEY, token BIGINT NOT NULL)}</pre>
 *
 * <p>A resource name is 1 to {@value #MAX_RESOURCE_LENGTH} characters (the column's width); a
 * longer or empty one is refused with {@link IllegalArgumentException} before the database is
 * touched. Any database error other than "another writer inserted this resource's row first" is
 * reported as an error naming the resource and the database's message, and admits nothing.
 */
public final class JdbcFenceGuard implements FenceGuard {
    /** The longest resource name, in characters: the width of the table's {@code resource} column. */
    public static final int MAX_RESOURCE_LENGTH = 255;
    private static final Logger LOG = LoggerFactory.getLogger(JdbcFenceGuard.class);
    /**
     * Attempts of update-else-insert in autocommit mode. A duplicate-key failure of the insert
     * means the row exists now, so the second attempt's update or read decides; a third covers a
     * row deleted in between. More than that is not a race but a table that refuses our insert.
     */
    private static final int ATTEMPTS = 3;

    private final DataSource dataSource;
    private final String table;
    private final AtomicLong rejections = new AtomicLong();

    /** @param table the fence table's name: letters, digits and underscores only */
    public JdbcFenceGuard(DataSource dataSource, String table) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        if (table == null || !table.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("fence table name " + table + " must be a plain SQL identifier");
        }
        this.table = table;
    }

    /** The DDL for the fence table. */
    public String createTableSql() {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + MAX_RESOURCE_LENGTH + ") PRIMARY KEY, token BIGINT NOT NULL)";
    }

    /** Admits in its own auto-committed statement(s). */
    @Override
    public boolean admit(String resource, FencingToken token) {
        checkResource(resource);
        Objects.requireNonNull(token, "token");
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            return admit(c, resource, token);
        } catch (SQLException e) {
            throw new CoordException("fence table " + table + " could not be updated for " + resource + ": " + e.getMessage(), e);
        }
    }

    /**
     * Admits within the caller's transaction on {@code connection}; the caller commits its write
     * and the fence update together, or rolls both back when this returns false.
     *
     * <p>With auto-commit off, the first admit of a resource that races another writer's first
     * admit can fail with a duplicate key (SQLState class 23): many databases abort the
     * transaction on any error, so this does not retry inside it; roll back and run the whole
     * transaction again (it then takes the update path). With auto-commit on, that race is
     * retried here.
     *
     * @throws SQLException naming the table and resource, with the database's SQLState and code
     *                      and its exception as the cause; nothing was admitted
     */
    public boolean admit(Connection connection, String resource, FencingToken token) throws SQLException {
        checkResource(resource);
        Objects.requireNonNull(token, "token");
        for (int attempt = 1; ; attempt++) {
            if (update(connection, resource, token)) {
                return true;
            }
            // No row moved: either the resource is new, or our token is stale.
            long highest = readHighest(connection, resource);
            if (highest >= 0) {
                rejections.incrementAndGet();
                LOG.warn("fence table {} rejected stale token {} for {} (highest {})", table, token, resource, highest);
                return false;
            }
            SQLException failed = insert(connection, resource, token);
            if (failed == null) {
                return true;
            }
            if (!isDuplicateKey(failed)) {
                throw failure("could not insert the fence row for", resource, failed);
            }
            if (!connection.getAutoCommit()) {
                throw failure("another writer inserted the fence row first (roll back and retry the transaction) for",
                        resource, failed);
            }
            if (attempt == ATTEMPTS) {
                throw failure("the insert kept failing with an integrity violation although no row appeared for",
                        resource, failed);
            }
            // Another writer inserted first: decide again against its row.
        }
    }

    private boolean update(Connection connection, String resource, FencingToken token) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE " + table + " SET token = ? WHERE resource = ? AND token <= ?")) {
            ps.setLong(1, token.value());
            ps.setString(2, resource);
            ps.setLong(3, token.value());
            return ps.executeUpdate() == 1;
        }
    }

    /** Null when inserted; else the database's refusal. */
    private SQLException insert(Connection connection, String resource, FencingToken token) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + table + " (resource, token) VALUES (?, ?)")) {
            ps.setString(1, resource);
            ps.setLong(2, token.value());
            ps.executeUpdate();
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    /** A unique/primary-key violation: SQLState class 23 (integrity constraint), as JDBC drivers report it. */
    static boolean isDuplicateKey(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLIntegrityConstraintViolationException || (state != null && state.startsWith("23"));
    }

    private SQLException failure(String what, String resource, SQLException cause) {
        return new SQLException("fence table " + table + ": " + what + " resource \"" + resource + "\" (SQLState "
                + cause.getSQLState() + ", code " + cause.getErrorCode() + "): " + cause.getMessage()
                + "; nothing was admitted", cause.getSQLState(), cause.getErrorCode(), cause);
    }

    private static void checkResource(String resource) {
        if (resource == null || resource.isEmpty() || resource.length() > MAX_RESOURCE_LENGTH) {
            throw new IllegalArgumentException("fence resource name must be 1 to " + MAX_RESOURCE_LENGTH + " characters, got "
                    + (resource == null ? "null" : resource.length() + ": \"" + abbreviate(resource) + "\""));
        }
    }

    private static String abbreviate(String resource) {
        return resource.length() <= 60 ? resource : resource.substring(0, 60) + "…";
    }

    @Override
    public long highest(String resource) {
        checkResource(resource);
        try (Connection c = dataSource.getConnection()) {
            return Math.max(0, readHighest(c, resource));
        } catch (SQLException e) {
            throw new CoordException("fence table " + table + " could not be read for " + resource + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long rejections() {
        return rejections.get();
    }

    private long readHighest(Connection c, String resource) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT token FROM " + table + " WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }
}

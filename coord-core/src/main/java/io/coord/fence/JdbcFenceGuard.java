package io.coord.fence;

import io.coord.CoordException;
import io.coord.FencingToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 */
public final class JdbcFenceGuard implements FenceGuard {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcFenceGuard.class);

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
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(255) PRIMARY KEY, token BIGINT NOT NULL)";
    }

    /** Admits in its own auto-committed statement(s). */
    @Override
    public boolean admit(String resource, FencingToken token) {
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
     */
    public boolean admit(Connection connection, String resource, FencingToken token) throws SQLException {
        String update = "UPDATE " + table + " SET token = ? WHERE resource = ? AND token <= ?";
        try (PreparedStatement ps = connection.prepareStatement(update)) {
            ps.setLong(1, token.value());
            ps.setString(2, resource);
            ps.setLong(3, token.value());
            if (ps.executeUpdate() == 1) {
                return true;
            }
        }
        // No row moved: either the resource is new, or our token is stale.
        if (readHighest(connection, resource) < 0) {
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + table + " (resource, token) VALUES (?, ?)")) {
                ps.setString(1, resource);
                ps.setLong(2, token.value());
                ps.executeUpdate();
                return true;
            } catch (SQLException duplicate) {
                // Another writer inserted first (a unique-key violation): decide again against its row.
                if (!connection.getAutoCommit()) {
                    throw duplicate; // inside a transaction the caller must retry the whole transaction
                }
                return admit(connection, resource, token);
            }
        }
        rejections.incrementAndGet();
        LOG.warn("fence table {} rejected stale token {} for {}", table, token, resource);
        return false;
    }

    @Override
    public long highest(String resource) {
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

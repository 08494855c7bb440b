package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/acl"
	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/counter"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/pubsub"
	"github.com/corvid-kv/corvid/internal/script"
)

// Version is the Valkey version Corvid is compatible with, reported where
// clients look for it (HELLO, INFO); CorvidVersion is Corvid's own.
const (
	Version       = "8.0.1"
	RedisVersion  = "7.2.4" // what Valkey 8 reports as redis_version
	CorvidVersion = "0.1.0"
)

// Server is one corvid-server instance.
type Server struct {
	rdb rdbState // RDB persistence (persist.go)
	aof aofState // AOF persistence (aof.go)
	cfg *config.Config
	ks  *db.Keyspace
	// pubsub holds the pub/sub subscriptions (pubsub.go); monitors the
	// clients in MONITOR mode (monitor.go).
	pubsub   *pubsub.Registry
	monitors monitors
	// acl holds the users (acl.go, package acl).
	acl   *acl.Users
	table *table
	log   *logger

	// cluster is cluster mode's state and bus (cluster.go); nil when
	// cluster-enabled is no.
	cluster *cluster.Cluster
	// slotStats are CLUSTER SLOT-STATS's counters (cluster mode only;
	// cluster_slotstats.go).
	slotStats *slotStats

	// lnMu guards listeners (CONFIG SET port and bind replace them).
	lnMu      sync.Mutex
	listeners []net.Listener
	serving   bool           // Serve started: new listeners get accept loops
	acceptWG  sync.WaitGroup // the accept loops
	runID     string
	start     time.Time
	port      atomic.Int64 // tcp_port (the listeners' port)
	tls       tlsState     // tls-port's listeners and the TLS configuration (tls.go)
	metrics   metricsState // the Prometheus endpoint (metrics.go)

	mu struct {
		sync.Mutex
		clients map[int64]*Client
		closed  bool
	}
	nextID   atomic.Int64
	nclients atomic.Int64
	stop     chan struct{}
	// leaving is closed when a shutdown starts, before its final save,
	// so that a DEBUG SLEEP holding every stripe lets the save run.
	leaving     chan struct{}
	leavingOnce sync.Once
	wg          sync.WaitGroup
	shutdownFn  func() // set by Run: SHUTDOWN asks the process to exit

	stats  serverStats
	slow   slowlog
	errs   errorStats
	pause  pauseState
	expire atomic.Bool // DEBUG SET-ACTIVE-EXPIRE
	// cronPaused (DEBUG PAUSE-CRON 1) stops the periodic jobs, as
	// Valkey's serverCron returns at once: active expiry and rehashing,
	// the save points, the replication cron, the metrics sampling.
	cronPaused atomic.Bool
	rbufs      replyBufSettings // reply buffer resizing (replybuf.go)
	// diskDeny is diskOK, or why commands are refused: MISCONF, or
	// LOADING while the dataset loads (misconf.go).
	diskDeny atomic.Int32
	// loaded is closed once the dataset is loaded: the crons (expiry,
	// eviction, save points) wait for it. New closes it; Run makes a new
	// one to serve (with LOADING replies) while it loads.
	loaded chan struct{}
	// migrate holds MIGRATE's connection cache (migrate.go).
	migrate migrateState
	hot     hotConfig
	extras  *serverExtras // INFO rates, latency monitor, histograms, repl ids
	trk     trackingState // client-side caching (tracking.go)

	// evictMu serializes client eviction (maxmemory-clients) with clients
	// releasing their memory; evictPending (under it) is the memory of
	// evicted clients whose connections have not closed yet.
	evictMu      sync.Mutex
	evictPending int64

	loops   *netloop.Engine // event loops; nil: net-engine goroutine
	offLoop *offLoopSet     // commands that make a client leave its loop

	scripts *script.Engine // the script cache and Lua states (script.go)
	// supervised is the supervision in effect (supervise.go): "systemd",
	// "upstart" or "no"; set by Run before serving.
	supervised string
	// scriptDenyOff: DEBUG SET-DISABLE-DENY-SCRIPTS 1 lets scripts call
	// noscript commands (Valkey's test switch).
	scriptDenyOff atomic.Bool

	repl     replState     // replication, both roles (repl_primary.go, repl_replica.go)
	failover failoverState // FAILOVER (repl_failover.go)
}

type serverStats struct {
	connsReceived atomic.Int64
	commands      counter.Sharded // per call: sharded (see package counter)
	rejectedConns atomic.Int64
	netInput      counter.Sharded // per read
	netOutput     counter.Sharded // per write
	// reads and writes count the reads of clients' sockets and the
	// writes to them (INFO total_reads_processed and
	// total_writes_processed, as Valkey's readQueryFromClient and
	// writeToClient count theirs): one add per batch read and per flush.
	reads, writes  counter.Sharded
	totalErrors    atomic.Int64
	unexpectedErrs atomic.Int64
	panics         atomic.Int64 // commands that panicked (contained_panics)
	qbufLimitDisc  atomic.Int64 // client_query_buffer_limit_disconnections
	obufLimitDisc  atomic.Int64 // client_output_buffer_limit_disconnections
	evictedClients atomic.Int64 // maxmemory-clients evictions
	netReplInput   atomic.Int64 // bytes read from a primary
	netReplOutput  atomic.Int64 // bytes streamed to replicas
}

// New builds a server from a loaded configuration. It does not listen yet.
func New(cfg *config.Config) (*Server, error) {
	s := &Server{
		cfg:     cfg,
		ks:      db.New(cfg.Databases()),
		stop:    make(chan struct{}),
		leaving: make(chan struct{}),
		start:   time.Now(),
		log:     newLogger(cfg),
		loaded:  make(chan struct{}),
	}
	close(s.loaded)
	var id [20]byte
	rand.Read(id[:])
	s.runID = hex.EncodeToString(id[:])
	s.mu.clients = make(map[int64]*Client)
	s.expire.Store(true)
	s.rbufs.peakReset.Store(replyPeakResetDefault)
	s.table = buildTable(dataHandlers(), serverHandlers())
	if err := s.table.applyRenames(cfg.RenamedCommands()); err != nil {
		return nil, err
	}
	s.extras = newServerExtras(s)
	s.initRDB()
	s.initRepl()
	s.ks.Hooks.Flushed = s.releaseAfterFlush
	s.pubsub = pubsub.NewRegistry()
	s.scripts = script.New()
	s.ks.SetObserver(keyObserver{s})
	s.ks.Effects = new(effects.Stream)
	s.initMemory()
	s.slow.init()
	s.errs.init()
	if err := s.initACL(); err != nil {
		return nil, err
	}
	if err := s.initCluster(); err != nil {
		return nil, err
	}
	s.applyConfig()
	return s, nil
}

// awaitLoaded waits until the dataset is loaded; false if the server
// stops first.
func (s *Server) awaitLoaded() bool {
	select {
	case <-s.loaded:
		return true
	case <-s.stop:
		return false
	}
}

// dataHandlers lists every data command group (package db).
func dataHandlers() [][]db.Handler {
	return [][]db.Handler{db.StringCommands, db.KeyCommands, collectionHandlers()}
}

// applyConfig pushes config values that live outside the config object.
func (s *Server) applyConfig() {
	s.hot.load(s.cfg)
	s.ks.SetLazyFree(s.cfg.LazyfreeLazyExpire(), s.cfg.LazyfreeLazyEviction(), s.cfg.LazyfreeLazyServerDel())
	applyTuning(s.ks, s.cfg)
	s.ks.SetNotifyFlags(s.cfg.NotifyKeyspaceEvents())
	s.scripts.SetBusyThreshold(time.Duration(s.cfg.BusyReplyThreshold()) * time.Millisecond)
	s.applyRuntimeConfig()
}

// Serve accepts connections until Close. It starts the background jobs.
func (s *Server) Serve() error {
	// The background jobs join s.wg under s.mu, where Close marks the
	// server closed before it waits: either Close finds them registered,
	// or Serve finds the server closing and starts nothing. (A WaitGroup
	// must not be added to from zero while it is being waited on; a
	// Close racing the start of Serve did that, and the race detector
	// caught it in a test that closes a server right after starting it.)
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		return nil
	}
	s.startIntrospection()
	s.wg.Add(4) // the keyspace cron, eviction, the save points and replication, below
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		if !s.awaitLoaded() {
			return
		}
		s.ks.RunExpiry(s.stop,
			func() time.Duration { return time.Second / time.Duration(max(1, s.cfg.Hz())) },
			func() int { return s.cfg.ActiveExpireEffort() },
			func() bool { return s.expire.Load() && !s.repl.isReplica.Load() && !s.cronPaused.Load() },
			func() bool { return s.cfg.ActiveRehashing() && !s.cronPaused.Load() })
	}()
	go func() {
		defer s.wg.Done()
		if s.awaitLoaded() {
			s.ks.RunEviction(s.stop)
		}
	}()
	go func() {
		defer s.wg.Done()
		if s.awaitLoaded() {
			s.runSaveCron()
		}
	}()
	go func() {
		defer s.wg.Done()
		if !s.awaitLoaded() {
			return
		}
		if p := s.cfg.ReplicaOf(); p != nil {
			s.startReplication(p.Host, p.Port, false)
		}
		s.replCron()
	}()
	s.startAccepting()
	<-s.stop
	s.acceptWG.Wait()
	return nil
}

func (s *Server) acceptLoop(ln net.Listener) error {
	var delay time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			select {
			case <-s.stop:
				return nil
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			delay = s.acceptBackoff(delay, err)
			continue
		}
		delay = 0
		s.stats.connsReceived.Add(1)
		if _, ok := ln.(tlsListener); ok {
			go s.acceptTLS(conn) // the handshake must not hold up accepting
			continue
		}
		s.accept(conn)
	}
}

// Close stops accepting, disconnects every client and stops background jobs.
func (s *Server) Close() {
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		return
	}
	s.mu.closed = true
	close(s.stop)
	clients := make([]*Client, 0, len(s.mu.clients))
	for _, c := range s.mu.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	s.closeListeners()
	s.closeMetrics()
	s.stopCluster()
	for _, c := range clients {
		c.kill()
	}
	s.wg.Wait()
	if s.loops != nil {
		s.loops.Close()
	}
	s.stopAOF()
	// The runtime's memory limit is process-wide: do not leave this
	// server's behind (tests and embedders run several servers).
	setGoMemoryLimit(0)
}

// Effects is the stream of every change the server makes to its data
// (package effects): what persistence and replication consume, and what
// tests record to replay.
func (s *Server) Effects() *effects.Stream { return s.ks.Effects }

// Keyspace exposes the data for tests and embedding.
func (s *Server) Keyspace() *db.Keyspace { return s.ks }

// Run is corvid-server's main: listen, serve until ctx is done, SHUTDOWN,
// or a shutdown signal on signals (from NotifySignals; nil for none),
// then close.
func Run(ctx context.Context, cfg *config.Config, signals <-chan os.Signal) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	if err := s.Listen(); err != nil {
		return err
	}
	if err := s.startCluster(); err != nil {
		s.Close()
		return err
	}
	if d := cfg.Dir(); d != "" {
		// Valkey chdirs into dir so relative file names (dbfilename,
		// appendfilename, logs) resolve there.
		if err := os.Chdir(d); err != nil {
			return fmt.Errorf("Can't chdir to '%s': %v", d, err)
		}
	}
	s.logStartup()
	s.supervised = s.supervisor()
	s.removeStaleTemps()
	s.aofConfigHooks()
	if pf := cfg.PidFile(); pf != "" {
		if err := os.WriteFile(pf, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			s.log.warn("Failed to write PID file: %v", err)
		}
		defer os.Remove(pf)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.shutdownFn = cancel
	// Serve while loading, as Valkey does: commands without the loading
	// flag get LOADING; the crons start once the dataset is in. A
	// SHUTDOWN or a shutdown signal meanwhile stops the load and exits
	// without saving (a partial dataset is never saved).
	s.loaded = make(chan struct{})
	s.setLoading(true)
	if s.supervised == "systemd" {
		s.sdNotify("STATUS=Valkey is loading...\n")
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	loadDone := make(chan error, 1)
	go func() {
		if cfg.AppendOnly() {
			// With appendonly yes Valkey loads the AOF and not the RDB.
			loadDone <- s.startAOF()
		} else {
			loadDone <- s.loadRDB()
		}
	}()
	var lerr error
loading:
	for {
		select {
		case lerr = <-loadDone:
			break loading
		case sig := <-signals:
			if s.onSignal(sig, false) == sigShutdown {
				s.log.notice("User requested shutdown...")
				s.rdb.abortLoad.Store(true)
			}
		case <-ctx.Done():
			s.rdb.abortLoad.Store(true)
		}
	}
	s.setLoading(false)
	close(s.loaded)
	if lerr != nil && s.rdb.abortLoad.Load() { // the load stopped with errLoadAborted
		s.rdb.finalSaved.Store(true) // nothing to save: never the part loaded
		s.Close()
		s.log.notice("%s is now ready to exit, bye bye...", "Corvid")
		return nil
	}
	if lerr != nil {
		s.log.warn("%v", lerr)
		s.Close()
		return lerr
	}
	if a := s.Addr(); a != "" {
		s.log.notice("Ready to accept connections tcp on %s", a)
	}
	if a := s.TLSAddr(); a != "" {
		s.log.notice("Ready to accept connections tls on %s", a)
	}
	s.notifyReady()
wait:
	for {
		select {
		case sig := <-signals:
			if s.onSignal(sig, false) == sigShutdown {
				s.log.notice("User requested shutdown...")
				resume := s.waitReplicasForShutdown()
				// With save points, save first (shutdown-on-sigterm
				// default); a failed save keeps the server running, as
				// Valkey's does.
				if !s.rdb.finalSaved.Load() && len(cfg.SavePoints()) > 0 {
					if s.finalSave() != nil {
						resume()
						continue
					}
				}
				break wait
			}
		case <-ctx.Done():
			s.log.notice("User requested shutdown...")
			break wait
		case err = <-done:
			break wait
		}
	}
	s.notifyStopping()
	// Signals keep being handled while clients are closed: SIGHUP and
	// SIGPIPE stay harmless, a second SIGINT exits at once.
	closed := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-signals:
				if s.onSignal(sig, true) == sigExitNow {
					os.Exit(1)
				}
			case <-closed:
				return
			}
		}
	}()
	s.Close()
	close(closed)
	s.log.notice("%s is now ready to exit, bye bye...", "Corvid")
	return err
}

// StartEmbedded starts a server with default settings on a free loopback
// port (corvid-bench with no target, tests). stop shuts it down.
func StartEmbedded() (addr string, stop func(), err error) {
	cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--save", ""})
	if err != nil {
		return "", nil, err
	}
	s, err := New(cfg)
	if err != nil {
		return "", nil, err
	}
	if err := s.Listen(); err != nil {
		return "", nil, err
	}
	go s.Serve()
	return s.Addr(), s.Close, nil
}

// ServeArgs runs a server with args as its options, as corvid-server
// does without a configuration file, until it shuts down, and returns
// the process's exit status (corvid-bench's child server, its tests).
func ServeArgs(args []string) int {
	signals := NotifySignals()
	cfg, err := config.LoadWith(config.LoadOptions{Args: args, CommandExists: CommandExists})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := Run(context.Background(), cfg, signals); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func (s *Server) logStartup() {
	s.log.notice("Corvid %s (Valkey %s compatible) starting, pid=%d, GOMAXPROCS=%d", CorvidVersion, Version, os.Getpid(), runtime.GOMAXPROCS(0))
	s.log.notice("Server initialized")
}

// acceptBackoff logs a failed accept (EMFILE and friends) and waits as
// net/http does, doubling from 5 ms up to a second; it returns the delay
// for the next failure.
func (s *Server) acceptBackoff(delay time.Duration, err error) time.Duration {
	delay = min(max(2*delay, 5*time.Millisecond), time.Second)
	s.log.warn("Accepting client connection: %v", err)
	time.Sleep(delay)
	return delay
}

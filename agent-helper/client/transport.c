/* transport.c - HTTP to the shard servers on libcurl's multi interface
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <pthread.h>
#include <curl/curl.h>
#include "transport-priv.h"
#include "dirstore.h"

/* Requests in flight at once; the others wait their turn.  */
#define KS_MAX_ACTIVE 32
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static uint8_t run_secret[16];

static void
do_curl_init (void)
{
  curl_init_rc = curl_global_init (CURL_GLOBAL_DEFAULT);
  gcry_randomize (run_secret, sizeof run_secret, GCRY_STRONG_RANDOM);
}

uint64_t
ks_transport_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
ks_transport_is_loopback (const char *url)
{
  CURLU *h;
  char *host = NULL;
  int yes = 0;
  size_t n;

  h = curl_url ();
  if (!h)
    return 0;
  if (curl_url_set (h, CURLUPART_URL, url, 0)
      || curl_url_get (h, CURLUPART_HOST, &host, 0) || !host)
    goto leave;
  n = strlen (host);
  if (!strcasecmp (host, "localhost")
      || (n > 10 && !strcasecmp (host + n - 10, ".localhost"))
      || !strcmp (host, "[::1]"))
    yes = 1;
  else if (!strncmp (host, "127.", 4))
    {
      /* Only a dotted IPv4 literal counts: "127.example.org" is a name
       * and goes through the proxy.  */
      unsigned int a, b, c, d;
      char tail;

      if (sscanf (host, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4
          && a == 127 && b < 256 && c < 256 && d < 256)
        yes = 1;
    }

 leave:
  curl_free (host);
  curl_url_cleanup (h);
  return yes;
}

static size_t
header_cb (char *buffer, size_t size, size_t nitems, void *arg)
{
  ks_xfer_t *x = arg;
  size_t len = size * nitems;
  static const char key[] = "keysafe-challenge:";
  size_t kl = sizeof key - 1;

  if (len > kl && !strncasecmp (buffer, key, kl))
    {
      const char *p = buffer + kl;
      size_t n = len - kl;

      while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
      while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
        n--;
      if (n < sizeof x->priv->challenge)
        {
          memcpy (x->priv->challenge, p, n);
          x->priv->challenge[n] = 0;
        }
    }
  return len;
}

static size_t
write_cb (char *ptr, size_t size, size_t nmemb, void *arg)
{
  ks_xfer_t *x = arg;
  size_t len = size * nmemb;

  if (!x->resp)
    {
      if (ks_buf_new (x->maxresp ? x->maxresp : 4096, 0, &x->resp))
        return 0;
    }
  if (ks_buf_append (x->resp, ptr, len))
    {
      x->priv->overflow = 1;
      return 0;  /* aborts with CURLE_WRITE_ERROR */
    }
  return len;
}

/* Per-server SOCKS user name: the same for all requests to one server
 * in this run, different between servers and between runs.  */
static void
make_socks_user (const char *base, char *out, size_t outsize)
{
  uint8_t digest[32];
  gcry_md_hd_t md;
  char hex[17];

  if (gcry_md_open (&md, GCRY_MD_SHA256, 0))
    {
      snprintf (out, outsize, "keysafe");
      return;
    }
  gcry_md_write (md, run_secret, sizeof run_secret);
  gcry_md_write (md, base, strlen (base));
  memcpy (digest, gcry_md_read (md, 0), sizeof digest);
  gcry_md_close (md);
  ks_hex_encode (digest, 8, hex);
  snprintf (out, outsize, "ks%s", hex);
}

static gpg_error_t
setup_easy (const ks_transport_cfg_t *cfg, ks_xfer_t *x)
{
  struct ks_xfer_priv *p = x->priv;
  CURL *e;
  struct curl_slist *l;
  char proxy[300];
  int n;

  if (p->easy)
    curl_easy_cleanup (p->easy);
  curl_slist_free_all (p->hdrs);
  p->hdrs = NULL;
  KS_BUF_FREE (x->resp);
  p->overflow = 0;
  p->challenge[0] = 0;
  p->curlerr[0] = 0;

  e = p->easy = curl_easy_init ();
  if (!e)
    return gpg_error (GPG_ERR_ENOMEM);

  n = snprintf (p->url, sizeof p->url, "%s/v1/shard/%s", x->base, x->name);
  if (n < 0 || (size_t)n >= sizeof p->url)
    return gpg_error (GPG_ERR_INV_URI);

  curl_easy_setopt (e, CURLOPT_URL, p->url);
  curl_easy_setopt (e, CURLOPT_PRIVATE, x);
  curl_easy_setopt (e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt (e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt (e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (e, CURLOPT_ERRORBUFFER, p->curlerr);
  curl_easy_setopt (e, CURLOPT_CONNECTTIMEOUT,
                    (long)(cfg->connect_timeout ? cfg->connect_timeout : 30));
  curl_easy_setopt (e, CURLOPT_TIMEOUT,
                    (long)(cfg->timeout ? cfg->timeout : 60));
  curl_easy_setopt (e, CURLOPT_HEADERFUNCTION, header_cb);
  curl_easy_setopt (e, CURLOPT_HEADERDATA, x);
  curl_easy_setopt (e, CURLOPT_WRITEFUNCTION, write_cb);
  curl_easy_setopt (e, CURLOPT_WRITEDATA, x);
  if (cfg->verbose > 1)
    curl_easy_setopt (e, CURLOPT_VERBOSE, 1L);

  p->proxied = 0;
  if (ks_transport_is_loopback (x->base) || cfg->no_tor)
    curl_easy_setopt (e, CURLOPT_PROXY, "");  /* and ignore *_proxy */
  else
    {
      n = snprintf (proxy, sizeof proxy, "socks5h://%s",
                    cfg->tor_socks ? cfg->tor_socks : "127.0.0.1:9050");
      if (n < 0 || (size_t)n >= sizeof proxy)
        return gpg_error (GPG_ERR_INV_VALUE);
      curl_easy_setopt (e, CURLOPT_PROXY, proxy);
      /* Else no_proxy/NO_PROXY in the environment would send the
       * request around Tor.  */
      curl_easy_setopt (e, CURLOPT_NOPROXY, "");
      snprintf (p->proxy, sizeof p->proxy, "%s",
                cfg->tor_socks ? cfg->tor_socks : "127.0.0.1:9050");
      make_socks_user (x->base, p->socksuser, sizeof p->socksuser);
      curl_easy_setopt (e, CURLOPT_PROXYUSERNAME, p->socksuser);
      curl_easy_setopt (e, CURLOPT_PROXYPASSWORD, "x");
      p->proxied = 1;
    }

  /* No "Expect: 100-continue": it costs a round trip through Tor.  */
  l = curl_slist_append (NULL, "Expect:");
  if (l)
    p->hdrs = l;
  if (x->method == KS_HTTP_PUT)
    {
      curl_easy_setopt (e, CURLOPT_CUSTOMREQUEST, "PUT");
      curl_easy_setopt (e, CURLOPT_POSTFIELDS, (const char *)x->body);
      curl_easy_setopt (e, CURLOPT_POSTFIELDSIZE, (long)x->bodylen);
      l = curl_slist_append (p->hdrs,
                             "Content-Type: application/octet-stream");
      if (l)
        p->hdrs = l;
    }
  else
    curl_easy_setopt (e, CURLOPT_HTTPGET, 1L);
  if (p->powhdr[0])
    {
      l = curl_slist_append (p->hdrs, p->powhdr);
      if (l)
        p->hdrs = l;
    }
  if (!p->hdrs)
    return gpg_error (GPG_ERR_ENOMEM);
  curl_easy_setopt (e, CURLOPT_HTTPHEADER, p->hdrs);
  return 0;
}

static gpg_error_t
map_curl_error (CURLcode rc, int proxied)
{
  switch (rc)
    {
    case CURLE_OPERATION_TIMEDOUT: return gpg_error (GPG_ERR_TIMEOUT);
    case CURLE_COULDNT_CONNECT:
      return gpg_error (proxied ? GPG_ERR_NO_SERVICE : GPG_ERR_ECONNREFUSED);
    case CURLE_PROXY: return gpg_error (GPG_ERR_NO_SERVICE);
    case CURLE_COULDNT_RESOLVE_HOST: return gpg_error (GPG_ERR_UNKNOWN_HOST);
    case CURLE_WRITE_ERROR: return gpg_error (GPG_ERR_TOO_LARGE);
    default: return gpg_error (GPG_ERR_NETWORK);
    }
}

/* Decide what a finished attempt means: done, or wait and retry.  */
static void
finish_attempt (const ks_transport_cfg_t *cfg, ks_xfer_t *x, CURLcode rc)
{
  struct ks_xfer_priv *p = x->priv;
  long status = 0;

  curl_easy_getinfo (p->easy, CURLINFO_RESPONSE_CODE, &status);
  if (rc != CURLE_OK)
    {
      x->status = 0;
      x->err = map_curl_error (rc, p->proxied);
      if (p->overflow)
        snprintf (x->errtext, sizeof x->errtext, "%s",
                  _("answer too large"));
      else if (p->proxied && rc == CURLE_COULDNT_CONNECT)
        snprintf (x->errtext, sizeof x->errtext,
                  _("can't reach the SOCKS proxy at %s (is Tor running?)"),
                  p->proxy);
      else if (p->proxied && rc == CURLE_PROXY)
        snprintf (x->errtext, sizeof x->errtext,
                  _("the SOCKS proxy could not reach the server: %.100s"),
                  p->curlerr[0] ? p->curlerr : curl_easy_strerror (rc));
      else
        snprintf (x->errtext, sizeof x->errtext, "%.150s%s",
                  p->curlerr[0] ? p->curlerr : curl_easy_strerror (rc),
                  p->proxied ? _(" (through the SOCKS proxy)") : "");
      p->state = X_DONE;
      return;
    }

  x->status = status;
  x->err = 0;
  x->errtext[0] = 0;
  if (status == 403 && p->challenge[0]
      && p->pow_rounds < KS_MAX_POW_ROUNDS)
    {
      unsigned int d = ks_pow_challenge_difficulty (p->challenge);
      unsigned int cap = ks_transport_pow_cap (cfg, x);

      if (d > cap)
        {
          x->err = gpg_error (GPG_ERR_LIMIT_REACHED);
          snprintf (x->errtext, sizeof x->errtext,
                    _("the server asks too much proof of work"
                      " (difficulty %u, the limit is %u)"), d, cap);
          p->state = X_DONE;
          return;
        }
      x->err = ks_transport_pow_charge (cfg, x, d);
      if (x->err)
        {
          if (gpg_err_code (x->err) == GPG_ERR_LIMIT_REACHED)
            snprintf (x->errtext, sizeof x->errtext,
                      _("the server asks more proof of work than one"
                        " operation allows it (one more challenge of"
                        " difficulty %u)"), d);
          else
            snprintf (x->errtext, sizeof x->errtext, "%s",
                      gpg_strerror (x->err));
          p->state = X_DONE;
          return;
        }
      p->pow_rounds++;
      p->state = X_SOLVE_WAIT;
      return;
    }
  if ((status == 429 || status == 503)
      && p->busy_retries < KS_MAX_BUSY_RETRIES)
    {
      uint8_t jitter[2];

      /* 1, 2 and 4 s, plus up to a second at random.  */
      gcry_create_nonce (jitter, sizeof jitter);
      p->powhdr[0] = 0;
      p->state = X_WAITING;
      p->not_before_ms = ks_transport_now_ms () + (1000ULL << p->busy_retries)
                         + ((jitter[0] << 8 | jitter[1]) % 1000);
      p->busy_retries++;
      return;
    }
  p->state = X_DONE;
}

/* Start the waiting requests whose pause is over, up to KS_MAX_ACTIVE
 * at once.  *R_NEXT_WAKE gets the earliest end of a pause, 0 none.  */
static void
start_waiting (const ks_transport_cfg_t *cfg, CURLM *multi, ks_xfer_t *xfers,
               size_t n, size_t *nactive, size_t *ndone,
               uint64_t *r_next_wake)
{
  gpg_error_t err;
  uint64_t now = ks_transport_now_ms ();
  size_t i;

  *r_next_wake = 0;
  for (i = 0; i < n && *nactive < KS_MAX_ACTIVE; i++)
    {
      ks_xfer_t *x = &xfers[i];

      if (x->priv->state != X_WAITING)
        continue;
      if (x->priv->not_before_ms > now)
        {
          if (!*r_next_wake || x->priv->not_before_ms < *r_next_wake)
            *r_next_wake = x->priv->not_before_ms;
          continue;
        }
      if (ks_dirstore_is_url (x->base))
        {
          /* A directory location answers at once, as a server would.  */
          ks_dirstore_xfer (x);
          x->priv->state = X_DONE;
          (*ndone)++;
          if (cfg->progress)
            cfg->progress (cfg->progress_arg, "transfer", *ndone, n);
          continue;
        }
      err = setup_easy (cfg, x);
      if (!err && curl_multi_add_handle (multi, x->priv->easy))
        err = gpg_error (GPG_ERR_INTERNAL);
      if (err)
        {
          x->err = err;
          snprintf (x->errtext, sizeof x->errtext, "%s", gpg_strerror (err));
          x->priv->state = X_DONE;
          (*ndone)++;
          continue;
        }
      x->priv->state = X_ACTIVE;
      (*nactive)++;
    }
}

/* Take the finished attempts off MULTI; a request that is done counts
 * in *NDONE and is told to the progress callback.  */
static void
collect_finished (const ks_transport_cfg_t *cfg, CURLM *multi, size_t n,
                  size_t *nactive, size_t *ndone)
{
  CURLMsg *msg;
  int left;

  while ((msg = curl_multi_info_read (multi, &left)))
    {
      ks_xfer_t *x = NULL;

      if (msg->msg != CURLMSG_DONE)
        continue;
      curl_easy_getinfo (msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
      curl_multi_remove_handle (multi, msg->easy_handle);
      (*nactive)--;
      finish_attempt (cfg, x, msg->data.result);
      if (x->priv->state == X_DONE)
        {
          (*ndone)++;
          if (cfg->progress)
            cfg->progress (cfg->progress_arg, "transfer", *ndone, n);
        }
    }
}

/* Wait for activity on MULTI, or until NEXT_WAKE (ms, 0 none); at most
 * half a second.  */
static void
wait_a_little (CURLM *multi, size_t nactive, uint64_t next_wake)
{
  int timeout_ms = 500;
  uint64_t now;

  if (next_wake)
    {
      now = ks_transport_now_ms ();
      timeout_ms = next_wake > now ? (int)(next_wake - now) : 0;
      if (timeout_ms > 500)
        timeout_ms = 500;
    }
  /* Even with nothing active: a solver thread ends the wait early
   * through curl_multi_wakeup.  */
  (void)nactive;
  curl_multi_poll (multi, NULL, 0, timeout_ms, NULL);
}

gpg_error_t
ks_transport_run (const ks_transport_cfg_t *cfg, ks_xfer_t *xfers, size_t n)
{
  gpg_error_t err = 0;
  CURLM *multi = NULL;
  size_t i, ndone = 0, nactive = 0;
  uint64_t next_wake;
  int running;

  pthread_once (&curl_once, do_curl_init);
  if (curl_init_rc)
    return gpg_error (GPG_ERR_NOT_INITIALIZED);

  for (i = 0; i < n; i++)
    {
      xfers[i].status = 0;
      xfers[i].err = 0;
      xfers[i].errtext[0] = 0;
      xfers[i].resp = NULL;
      xfers[i].priv = ks_calloc (1, sizeof *xfers[i].priv);
      if (!xfers[i].priv)
        {
          err = gpg_error_from_syserror ();
          goto leave;
        }
    }
  multi = curl_multi_init ();
  if (!multi)
    {
      err = gpg_error (GPG_ERR_ENOMEM);
      goto leave;
    }

  /* Every request ends after a bounded number of attempts, each of them
   * bounded by the timeouts, so this loop ends.  */
  while (ndone < n)
    {
      ks_transport_run_solvers (cfg, multi, xfers, n, &ndone);
      if (ndone >= n)
        break;
      start_waiting (cfg, multi, xfers, n, &nactive, &ndone, &next_wake);
      if (ndone >= n)
        break;
      if (curl_multi_perform (multi, &running))
        {
          err = gpg_error (GPG_ERR_INTERNAL);
          goto leave;
        }
      collect_finished (cfg, multi, n, &nactive, &ndone);
      if (ndone < n)
        wait_a_little (multi, nactive, next_wake);
    }

 leave:
  for (i = 0; i < n; i++)
    {
      struct ks_xfer_priv *p = xfers[i].priv;

      if (!p)
        continue;
      /* A solver still running (only after a failure of the machinery)
       * is bounded by its number of tries.  */
      if (p->state == X_SOLVING)
        pthread_join (p->solver, NULL);
      if (p->easy)
        {
          if (multi && p->state == X_ACTIVE)
            curl_multi_remove_handle (multi, p->easy);
          curl_easy_cleanup (p->easy);
        }
      curl_slist_free_all (p->hdrs);
      ks_free (p);
      xfers[i].priv = NULL;
    }
  if (multi)
    curl_multi_cleanup (multi);
  return err;
}

void
ks_transport_release (ks_xfer_t *xfers, size_t n)
{
  size_t i;

  if (!xfers)
    return;
  for (i = 0; i < n; i++)
    KS_BUF_FREE (xfers[i].resp);
}

void
ks_xfer_set (ks_xfer_t *x, ks_http_method_t method, const char *base,
             const char *name, unsigned int server, unsigned int share,
             uint32_t chunk)
{
  memset (x, 0, sizeof *x);
  x->base = base;
  x->method = method;
  snprintf (x->name, sizeof x->name, "%s", name);
  x->server = server;
  x->share = share;
  x->chunk = chunk;
}

const char *
ks_xfer_reason (const ks_xfer_t *x)
{
  if (x->err)
    switch (gpg_err_code (x->err))
      {
      case GPG_ERR_LIMIT_REACHED: return "pow-limit";
      case GPG_ERR_TIMEOUT: case GPG_ERR_ETIMEDOUT: return "timeout";
      case GPG_ERR_ENOSPC: return "full";
      case GPG_ERR_NO_SERVICE: return "proxy";
      default: return "unreachable";
      }
  switch (x->status)
    {
    case 404: return "not-found";
    case 409: return "taken";
    case 413: return "too-large";
    case 507: return "full";
    case 429: return "overloaded";
    case 403: return "pow-refused";
    default: return "unexpected-status";
    }
}

const char *
ks_xfer_describe (const ks_xfer_t *x, char *buf, size_t size)
{
  if (x->err)
    snprintf (buf, size, "%s", x->errtext[0] ? x->errtext
              : gpg_strerror (x->err));
  else
    switch (x->status)
      {
      case 200: snprintf (buf, size, "%s", _("found")); break;
      case 201: snprintf (buf, size, "%s", _("stored")); break;
      case 404: snprintf (buf, size, "%s", _("not found")); break;
      case 409: snprintf (buf, size, "%s", _("the name is taken")); break;
      case 413: snprintf (buf, size, "%s", _("shard too large for the server"));
        break;
      case 507: snprintf (buf, size, "%s", _("the server is full")); break;
      case 429: snprintf (buf, size, "%s", _("the server is overloaded"));
        break;
      case 403: snprintf (buf, size, "%s", _("proof of work refused")); break;
      default:
        snprintf (buf, size, _("unexpected HTTP status %ld"), x->status);
      }
  return buf;
}

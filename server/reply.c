/* reply.c - the answers of keysafe-server (libmicrohttpd responses)
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include "reply.h"
#include "io.h"

/* Queue RESP with STATUS, its content type and no-store, and drop our
 * reference to it.  */
static enum MHD_Result
queue_reply (struct MHD_Connection *conn, unsigned int status,
             struct MHD_Response *resp, const char *content_type)
{
  enum MHD_Result ret;

  MHD_add_response_header (resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  MHD_add_response_header (resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  ret = MHD_queue_response (conn, status, resp);
  MHD_destroy_response (resp);
  return ret;
}

enum MHD_Result
ks_reply_text (struct MHD_Connection *conn, unsigned int status,
               const char *text, const char *hdr, const char *hdrval)
{
  struct MHD_Response *resp;

  resp = MHD_create_response_from_buffer (strlen (text), (void *)text,
                                          MHD_RESPMEM_PERSISTENT);
  if (!resp)
    return MHD_NO;
  if (hdr)
    MHD_add_response_header (resp, hdr, hdrval);
  return queue_reply (conn, status, resp, "text/plain; charset=utf-8");
}

/* The one table from refusals to statuses and their bodies.  */
static const struct
{
  unsigned int status;
  const char *text;
} status_table[] =
  {
    { MHD_HTTP_CREATED,               "created\n" },
    { MHD_HTTP_BAD_REQUEST,           "malformed name or body\n" },
    { MHD_HTTP_FORBIDDEN,             "proof of work required\n" },
    { MHD_HTTP_NOT_FOUND,             "not found\n" },
    { MHD_HTTP_METHOD_NOT_ALLOWED,    "method not allowed\n" },
    { MHD_HTTP_CONFLICT,              "name taken\n" },
    { MHD_HTTP_CONTENT_TOO_LARGE,     "shard too large\n" },
    { MHD_HTTP_TOO_MANY_REQUESTS,     "overloaded, retry later\n" },
    { MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n" },
    { MHD_HTTP_INSUFFICIENT_STORAGE,  "store full\n" },
  };

static const char *
status_text (unsigned int status)
{
  size_t i;

  for (i = 0; i < KS_DIM (status_table); i++)
    if (status_table[i].status == status)
      return status_table[i].text;
  return "error\n";
}

enum MHD_Result
ks_reply_status (struct MHD_Connection *conn, unsigned int status)
{
  return ks_reply_text (conn, status, status_text (status), NULL, NULL);
}

enum MHD_Result
ks_reply_not_allowed (struct MHD_Connection *conn, int is_info)
{
  return ks_reply_text (conn, MHD_HTTP_METHOD_NOT_ALLOWED,
                     status_text (MHD_HTTP_METHOD_NOT_ALLOWED),
                     MHD_HTTP_HEADER_ALLOW, is_info ? "GET" : "GET, PUT");
}

/* Refuse a body while it is still streaming in, and end the connection.
 *
 * libmicrohttpd 0.9.75 refuses MHD_queue_response while the access
 * handler is given body data (its header says so, and it returns
 * MHD_NO whether or not the connection is suspended), and a handler
 * that stops taking the data gets a 500 from MHD.  So the answer is
 * written here, in the same form as MHD's own, onto the connection's
 * socket; the caller then returns MHD_NO and MHD closes the connection
 * without reading the rest (the reaper drains it for a short while).
 * This is safe because a body callback only
 * runs once the request head and any "100 Continue" have been sent in
 * full: nothing of MHD's is waiting in front of it.  The socket is
 * non-blocking and its send buffer empty, so the short answer goes out
 * at once or not at all.  */
int
ks_reply_cut (struct MHD_Connection *conn, unsigned int status)
{
  const union MHD_ConnectionInfo *ci;
  const char *text = status_text (status);
  char msg[384], date[64];
  struct tm tm;
  time_t now = time (NULL);
  const char *p;
  ssize_t n;
  int len;

  ci = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (!ci || ci->connect_fd < 0)
    return 0;
  if (!gmtime_r (&now, &tm)
      || !strftime (date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm))
    *date = 0;
  len = snprintf (msg, sizeof msg,
                  "HTTP/1.1 %u %s\r\n"
                  "%s%s%s"
                  "Connection: close\r\n"
                  "Content-Type: text/plain; charset=utf-8\r\n"
                  "Cache-Control: no-store\r\n"
                  "Content-Length: %zu\r\n\r\n%s",
                  status, MHD_get_reason_phrase_for (status),
                  *date ? "Date: " : "", date, *date ? "\r\n" : "",
                  strlen (text), text);
  if (len < 0 || (size_t)len >= sizeof msg)
    return 0;
  for (p = msg; len > 0; p += n, len -= n)
    {
      n = send (ci->connect_fd, p, len, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        n = 0;
      else if (n <= 0)
        return 0;   /* the client is gone or not reading: just close */
    }
  return 1;
}

unsigned int
ks_reply_status_of_error (gpg_error_t err)
{
  switch (gpg_err_code (err))
    {
    case GPG_ERR_NO_ERROR: return MHD_HTTP_CREATED;
    case GPG_ERR_EEXIST:   return MHD_HTTP_CONFLICT;
    case GPG_ERR_ENOSPC:   return MHD_HTTP_INSUFFICIENT_STORAGE;
    case GPG_ERR_INV_NAME: return MHD_HTTP_BAD_REQUEST;
    case GPG_ERR_NO_DATA:  return MHD_HTTP_BAD_REQUEST;
    case GPG_ERR_TOO_LARGE: return MHD_HTTP_CONTENT_TOO_LARGE;
    default:               return MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
}

enum MHD_Result
ks_reply_info (struct MHD_Connection *conn, const size_t *sizes,
               unsigned int nsizes, unsigned int difficulty,
               unsigned int put_bits)
{
  struct MHD_Response *resp;
  char json[512], list[200];
  size_t used = 0;
  unsigned int i;
  int n;

  /* Largest first, as max_shard_bytes is the largest.  */
  for (i = nsizes; i > 0; i--)
    {
      n = snprintf (list + used, sizeof list - used, "%s%zu",
                    i < nsizes ? "," : "", sizes[i - 1]);
      if (n < 0 || (size_t)n >= sizeof list - used)
        return ks_reply_status (conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
      used += n;
    }
  n = snprintf (json, sizeof json,
                "{\"software\":\"keysafe-server\",\"version\":\"%s\","
                "\"max_shard_bytes\":%zu,\"object_sizes\":[%s],"
                "\"pow_difficulty\":%u,\"pow_put_extra_bits\":%u}\n",
                PACKAGE_VERSION, nsizes ? sizes[nsizes - 1] : 0, list,
                difficulty, put_bits);
  if (n < 0 || (size_t)n >= sizeof json)
    return ks_reply_status (conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
  resp = MHD_create_response_from_buffer (n, json, MHD_RESPMEM_MUST_COPY);
  if (!resp)
    return MHD_NO;
  return queue_reply (conn, MHD_HTTP_OK, resp, "application/json");
}

/* Shards up to this size are read into memory to be sent; larger ones
 * (a server run with a large --max-shard) go out with sendfile(2).  */
#define SMALL_SHARD (64 * 1024)

enum MHD_Result
ks_reply_shard (struct MHD_Connection *conn, ks_store_t *store,
                const char *name)
{
  struct MHD_Response *resp;
  gpg_error_t err;
  uint64_t size;
  char *data;
  int fd;

  err = ks_store_open_shard (store, name, &fd, &size);
  if (gpg_err_code (err) == GPG_ERR_ENOENT)
    return ks_reply_status (conn, MHD_HTTP_NOT_FOUND);
  if (err)
    goto failed;
  if (size && size <= SMALL_SHARD)
    {
      /* A small shard is read here and goes out with the head in one
       * writev(2): fewer system calls and TCP segments than a head
       * followed by sendfile(2), and the descriptor is closed at once.  */
      err = ks_io_read_all (fd, size, &data);
      close (fd);
      if (err)
        goto failed;
      resp = MHD_create_response_from_buffer_with_free_callback (size, data,
                                                                 free);
      if (!resp)
        {
          free (data);
          return MHD_NO;
        }
    }
  else
    {
      /* MHD sends it with sendfile(2) and closes FD with the response.  */
      resp = MHD_create_response_from_fd (size, fd);
      if (!resp)
        {
          close (fd);
          return MHD_NO;
        }
    }
  return queue_reply (conn, MHD_HTTP_OK, resp, "application/octet-stream");

 failed:
  gpgrt_log_error ("%s: %s\n", _("reading a shard failed"),
                   gpg_strerror (err));
  return ks_reply_status (conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
}


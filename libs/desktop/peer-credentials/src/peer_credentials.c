/*
 * getPeerCredentials(fd) -> { pid, uid, gid }
 *
 * Reads the credentials of the process at the other end of a connected Unix
 * domain socket, as recorded by the kernel at connect() time (IPC-6, IPC-12,
 * IPC-18). Never trusts a value claimed by the client.
 *   Linux: getsockopt(SOL_SOCKET, SO_PEERCRED)
 *   macOS: getsockopt(SOL_LOCAL, LOCAL_PEERPID) + getpeereid()
 * Throws a JS Error (code "ERR_PEER_CREDENTIALS") when the kernel refuses.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/un.h>
#include <sys/ucred.h>
#endif
#include <node_api.h>

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s failed: %s", what, strerror(err));
  napi_throw_error(env, "ERR_PEER_CREDENTIALS", message);
  return NULL;
}

static int set_number(napi_env env, napi_value object, const char *name, double value) {
  napi_value number;
  if (napi_create_double(env, value, &number) != napi_ok) return 0;
  return napi_set_named_property(env, object, name, number) == napi_ok;
}

static napi_value get_peer_credentials(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) {
    napi_throw_type_error(env, "ERR_INVALID_ARG", "getPeerCredentials(fd) needs a file descriptor");
    return NULL;
  }
  int32_t fd = -1;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, "ERR_INVALID_ARG", "fd must be a non-negative integer");
    return NULL;
  }

  double pid, uid, gid;
#ifdef __APPLE__
  pid_t peer_pid = 0;
  socklen_t pid_len = sizeof peer_pid;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &peer_pid, &pid_len) != 0)
    return throw_errno(env, "getsockopt(LOCAL_PEERPID)", errno);
  uid_t peer_uid;
  gid_t peer_gid;
  if (getpeereid(fd, &peer_uid, &peer_gid) != 0) return throw_errno(env, "getpeereid", errno);
  pid = (double)peer_pid;
  uid = (double)peer_uid;
  gid = (double)peer_gid;
#elif defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  memset(&cred, 0, sizeof cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return throw_errno(env, "getsockopt(SO_PEERCRED)", errno);
  pid = (double)cred.pid;
  uid = (double)cred.uid;
  gid = (double)cred.gid;
#else
#error "peer_credentials: unsupported platform (Linux and macOS only)"
#endif

  napi_value result;
  if (napi_create_object(env, &result) != napi_ok || !set_number(env, result, "pid", pid) ||
      !set_number(env, result, "uid", uid) || !set_number(env, result, "gid", gid)) {
    napi_throw_error(env, "ERR_PEER_CREDENTIALS", "could not build the result object");
    return NULL;
  }
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "getPeerCredentials", NAPI_AUTO_LENGTH, get_peer_credentials, NULL, &fn) !=
          napi_ok ||
      napi_set_named_property(env, exports, "getPeerCredentials", fn) != napi_ok)
    return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

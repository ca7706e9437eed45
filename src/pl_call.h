/*
** pl_call.h -- the bottom of the host layer: every call from C into Lua,
** and every way a call is stopped.  One protected call (a traceback
** handler that lets perflab.fail{} tables through), one report, and one
** interrupt service: Ctrl-C and the --timeout budget set the one flag
** below (parsers poll it) and arm the one Lua hook on the one running
** state.  Used by main.c, repl.c, session.c, perflab.c and, through the
** parse hooks it lends (lbind.h), by the bindings; it calls none of them.
*/
#ifndef PL_CALL_H
#define PL_CALL_H

#include <lua.h>

/* The one interrupt flag: set by Ctrl-C and when the time budget is spent;
** the C parsers poll it (pl_parse_opts.interrupt) and stop with an error. */
extern volatile int pl_interrupted;

/* Whether the value at idx is a perflab.fail{} error (a table whose
** metatable's __name is "perflab.Fail", errors.lua): the user's error, shown
** without a traceback and with its exit code.  Classified by structure,
** never by message text. */
int pl_is_fail(lua_State *L, int idx);

/* The message handler: perflab.fail{} errors pass through as they are (the
** user's error, no traceback); anything else, other tables included,
** becomes its text with a traceback ("(error object is a X value)" when it
** has none). */
int pl_msghandler(lua_State *L);

/* Calls the function below narg arguments with pl_msghandler.  While it
** runs, the first Ctrl-C raises the error "interrupted" in Lua (and stops a
** parser); a second one ends the process.  The SIGINT disposition in force
** before is put back afterwards.  Returns the lua_pcall status. */
int pl_docall(lua_State *L, int narg, int nres);

/* pl_docall for a notebook cell or a protocol request: every Ctrl-C (or
** Jupyter interrupt) interrupts, none ends the process, and afterwards
** SIGINT is ignored until the next cell.  *interrupted (may be NULL) is set
** to 1 when the call was stopped by Ctrl-C, 0 otherwise. */
int pl_docell(lua_State *L, int narg, int nres, int *interrupted);

/* SIGINT ignored (between cells). */
void pl_sigint_ignore(void);

/* At a prompt: Ctrl-C interrupts the read (no SA_RESTART) and sets a flag
** that pl_prompt_interrupted() returns until pl_prompt_clear(). */
void pl_prompt_catch_sigint(void);
int pl_prompt_interrupted(void);
void pl_prompt_clear(void);

/* Prints the error on top of the stack to stderr as "perflab: MSG" (a
** fail{} table's message; a traceback without its last frame, pmain's
** "[C]: in ?"), pops it and returns status. */
int pl_report(lua_State *L, int status);

/* Starts a wall-clock budget of `seconds` for L: past it the hook raises
** "time limit exceeded (--timeout S s)" at every check (a pcall cannot
** swallow it) and parsers stop at their next poll of pl_interrupted. */
void pl_limit_time(lua_State *L, double seconds);
/* Ends the budget pl_limit_time started on L (its timer, its hook, the
** spent flag): perflab serve gives each request its own budget. */
void pl_limit_time_clear(lua_State *L);
/* Stops the Lua code running on L at its next hook ("interrupted") and
** the parser it is in: what Ctrl-C does, for a caller that takes SIGINT
** itself (perflab serve stopping, from another thread). */
void pl_call_interrupt(lua_State *L);
/* 1 once the time budget is spent. */
int pl_time_up(void);
/* 1 once Ctrl-C or the time budget stopped something: a failed call's
** error is then that stop, not a fault of the code (main.c prints it
** alone, without the traceback of where perflab's own code was). */
int pl_call_stopped(void);

/* For the calling thread only (NULL: back to the process-wide ones): the
** parsers it runs poll *interrupt and report progress to `progress` (may
** be NULL) instead of the shared flag and the terminal's bar.  perflab
** serve's workers, which parse side by side. */
void pl_call_thread_parse_hooks(volatile int *interrupt, void (*progress)(void *, size_t, size_t), void *ud);

/* on: after each load that succeeds, switch the C core's allocations to
** big pages (pl_mem_bigpages: the memory the work after the load makes
** is faulted in 2 MiB at a time).  The command line turns it on; perflab
** serve, which must give memory back, and a host that embeds the module
** (its process, its malloc) leave it off. */
void pl_call_bigpages_after_load(int on);

/* Lends the parse hooks (interrupt flag, progress bar on a terminal, the
** host's wording of load errors) to the bindings of L (lbind.h,
** pl_l_sethooks).  pl_host_install calls it. */
void pl_call_lend_hooks(lua_State *L);

#endif

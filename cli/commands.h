/* The subcommands of the flysim command; each parses its own arguments (argv[0] is the
 * subcommand's name) and returns the process exit code. */
#ifndef FSIM_CLI_COMMANDS_H
#define FSIM_CLI_COMMANDS_H

int fsim_cmd_arch(int argc, char **argv);
int fsim_cmd_layout(int argc, char **argv);
int fsim_cmd_sim(int argc, char **argv);
int fsim_cmd_micro(int argc, char **argv);
int fsim_cmd_schedule(int argc, char **argv);
int fsim_cmd_predict(int argc, char **argv);
int fsim_cmd_tune(int argc, char **argv);
int fsim_cmd_db(int argc, char **argv);
int fsim_cmd_emit(int argc, char **argv);
int fsim_cmd_verify(int argc, char **argv);

#endif

/* The fsbench program: main() only; dispatch.c picks the command. */
#include "fsbench/cli/dispatch.h"

int main(int argc, char **argv)
{
	return fsb_dispatch(argc, argv);
}

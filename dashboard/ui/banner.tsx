export function DownBanner({ what, message }: { what: string; message: string }) {
  return (
    <div className="banner" role="alert">
      <strong>{what} is unreachable.</strong> {message}. The rest of the page still works.
    </div>
  );
}
